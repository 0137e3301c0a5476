/**
 * The split extension in a real VS Code: activation loads only the entry and the shared bundle; the
 * client (undici, schemas, adapters) loads on first use, and the errors it throws are the very
 * classes the extension's error handling tests with `instanceof` (one copy, in the shared bundle),
 * so the fs error mapping and the command wrapper still recognise them.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type * as Errors from '../../src/core/errors';
import type { FirecrestExtensionApi } from '../../src/common/api';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { target } from '../support/target';
import { EXTENSION_ID, extensionApi, firecrestLogText, waitFor } from './support/extension';

const PROFILE = 'bundles-test';

/** The error classes the extension itself uses: the shared bundle's, from the host's require cache. */
function extensionErrors(): typeof Errors {
  const dist = join(vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ?? '', 'dist');
  const shared = createRequire(join(dist, 'extension.js'))(join(dist, 'extension-shared.js')) as { src_core_errors: typeof Errors };
  return shared.src_core_errors;
}

async function failure(p: Thenable<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a failure');
}

describe('extension shell: bundles loaded on first use', () => {
  const t = target();
  let api: FirecrestExtensionApi;
  let client: FirecrestClient;
  let base: FirecrestUri;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });

  before(async () => {
    api = await extensionApi();
  });

  after(async () => {
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('activates with the entry, the shared bundle and the l10n library only', () => {
    // One parseable line for bench/activation.mjs.
    console.log(`      BUNDLES at activation: ${api.bundlesAtActivation.join(',')}`);
    assert.deepEqual([...api.bundlesAtActivation], ['extension-l10n.js', 'extension-shared.js', 'extension.js']);
  });

  it('loads the client bundle for the first client, once', async () => {
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
    const dist = join(vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ?? '', 'dist');
    const loaded = Object.keys(require.cache).filter((f) => f.startsWith(dist) && f.endsWith('.js'));
    assert.ok(loaded.includes(join(dist, 'extension-client.js')), `client bundle loaded: ${loaded.join(', ')}`);
    assert.equal(loaded.filter((f) => f.endsWith('extension-shared.js')).length, 1, 'one shared bundle');
    const user = (await client.userInfo(t.system)).user.name;
    base = FirecrestUri.from({ system: t.system, path: `/home/${user}/bundles-test-${randomBytes(4).toString('hex')}`, profile: PROFILE });
    await vscode.workspace.fs.createDirectory(uri(base));
  });

  it('throws the extension\'s own error classes from the lazily loaded client', async () => {
    const errors = extensionErrors();
    const missing = await failure(client.stat(t.system, base.joinPath('missing.txt').path));
    assert.ok(missing instanceof errors.NotFoundError, `a NotFoundError of the shared bundle, got ${String(missing)}`);
    assert.ok(missing instanceof errors.FirecrestError);
    const aborted = await failure(client.stat(t.system, base.path, { signal: AbortSignal.abort() }));
    assert.ok(errors.isCancellation(aborted), `a cancellation, got ${String(aborted)}`);
  });

  it('maps the client\'s errors to FileSystemError kinds (FileNotFound, NoPermissions)', async () => {
    const missing = await failure(vscode.workspace.fs.stat(uri(base.joinPath('missing.txt'))));
    assert.ok(missing instanceof vscode.FileSystemError, String(missing));
    assert.equal(missing.code, 'FileNotFound', missing.message);
    const locked = base.joinPath('locked.txt');
    await vscode.workspace.fs.writeFile(uri(locked), new TextEncoder().encode('locked'));
    await client.chmod(t.system, locked.path, '000');
    const denied = await failure(vscode.workspace.fs.readFile(uri(locked)));
    assert.ok(denied instanceof vscode.FileSystemError, String(denied));
    assert.equal(denied.code, 'NoPermissions', denied.message);
  });

  it('reports a client error through the command wrapper with the server\'s message', async () => {
    const name = `missing-${randomBytes(3).toString('hex')}.txt`;
    assert.equal(await vscode.commands.executeCommand('firecrest.files.chmod', uri(base.joinPath(name)), { mode: '750' }), undefined);
    const line = await waitFor('the failure in the log', () => firecrestLogText(api).split('\n').find((l) => l.includes('firecrest.files.chmod:') && l.includes(name)));
    assert.match(line, /\[error\]/);
  });
});
