/**
 * Files above the direct-transfer limit through `vscode.workspace.fs`: a save goes staged (S3
 * multipart, temp name then move) and a read comes back staged, byte for byte.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { connectWithScratchFolder } from './support/scratch';
import { gatewayOnly, target } from '../support/target';
import { setSettings } from './fs-gateway';

const PROFILE = 'fs-large-test';
const MiB = 1024 * 1024;

describe('large remote files (staged transfers)', function () {
  this.timeout(180_000);
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });

  before(async () => {
    const scratch = await connectWithScratchFolder(PROFILE, 'fs-large');
    ({ client, base } = scratch);
    // Several parts even for a few MiB (gateway only; a real deployment keeps its own part size).
    if (!gatewayOnly()) await setSettings(t.gateway, { maxPartSize: MiB });
  });

  after(async () => {
    if (!gatewayOnly()) await setSettings(t.gateway, { maxPartSize: 2147483648 });
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('saves a file above the direct limit and reads it back byte-identical', async () => {
    const limit = (await client.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 5 * MiB;
    const data = randomBytes(Math.max(5 * MiB, limit) + 7);
    const file = uri(base.joinPath('big.bin'));
    await vscode.workspace.fs.writeFile(file, data);
    const st = await vscode.workspace.fs.stat(file);
    assert.equal(st.size, data.length);
    const back = await vscode.workspace.fs.readFile(file);
    assert.equal(back.length, data.length);
    assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(data).digest('hex'));
    // Saved again (overwrite) through the same temp-then-move path; no temporary file is left.
    const second = randomBytes(data.length);
    await vscode.workspace.fs.writeFile(file, second);
    assert.ok(Buffer.from(await vscode.workspace.fs.readFile(file)).equals(second));
    const names = (await vscode.workspace.fs.readDirectory(uri(base))).map(([n]) => n);
    assert.deepEqual(names.filter((n) => n.includes('.tmp') || n.includes('f7t-part')), []);
  });
});
