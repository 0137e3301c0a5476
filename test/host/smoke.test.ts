/**
 * The smoke run: what every supported VS Code must do, from the oldest that `engines.vscode`
 * allows (1.103, run by `npm test` as its `host-oldest` step) to today's. The extension activates
 * and says where it runs, a remote folder lists through the Explorer's file system, a batch script
 * is submitted from an editor, and its output is followed to the end.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { target } from '../support/target';
import { testPartition } from './support/apiVersion';
import { addTestConnection, EXTENSION_ID, extensionApi, waitFor } from './support/extension';

const PROFILE = 'smoke-test';

interface OutputSnap {
  text: string;
  done: boolean;
}

describe('smoke: activation, a folder listing, a submit and an output follow', function () {
  const t = target();
  let client: FirecrestClient;
  let dir: string;
  const tag = Math.random().toString(36).slice(2, 8);
  const uri = (path: string) => vscode.Uri.parse(`firecrest://${PROFILE}@${t.system}${path}`);

  before(async () => {
    let home: string;
    ({ client, home } = await addTestConnection(PROFILE));
    dir = `${home}/fc-smoke-${tag}`;
    await client.mkdir(t.system, dir, { parents: true });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await client.remove(t.system, dir).catch(() => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it(`activates on VS Code ${vscode.version}, in the extension host the manifest prefers`, async () => {
    const api = await extensionApi();
    assert.ok(api.connections);
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext?.isActive);
    // The manifest asks for the UI side first: in a remote window (SSH, container, WSL) the
    // extension stays on the user's machine, never on the login node. A browser window has no
    // Node extension host on the UI side, so here it runs in the server's (workspace) host.
    assert.deepEqual((ext.packageJSON as { extensionKind?: string[] }).extensionKind, ['ui', 'workspace']);
    const expected = vscode.env.uiKind === vscode.UIKind.Web ? vscode.ExtensionKind.Workspace : vscode.ExtensionKind.UI;
    assert.equal(ext.extensionKind, expected, `uiKind ${vscode.env.uiKind}, remote ${vscode.env.remoteName ?? 'none'}`);
  });

  it('lists a remote folder through the firecrest:// file system', async () => {
    await client.uploadSmall(t.system, dir, 'a.txt', new TextEncoder().encode('smoke'));
    await client.mkdir(t.system, `${dir}/sub`);
    const entries = new Map(await vscode.workspace.fs.readDirectory(uri(dir)));
    assert.equal(entries.get('a.txt'), vscode.FileType.File);
    assert.equal(entries.get('sub'), vscode.FileType.Directory);
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri(`${dir}/a.txt`))), 'smoke');
  });

  it('submits the script open in the editor, and follows its output to the end', async function () {
    this.timeout(240_000);
    const partition = await testPartition(client, t.system);
    const script = `#!/bin/bash\n#SBATCH --job-name=fc-smoke-${tag}\n#SBATCH --partition=${partition}\n#SBATCH --time=00:02:00\nfor i in 1 2 3; do echo "line $i ${tag}"; sleep 1; done\n`;
    await vscode.workspace.fs.writeFile(uri(`${dir}/smoke.sbatch`), new TextEncoder().encode(script));
    await vscode.window.showTextDocument(uri(`${dir}/smoke.sbatch`));
    const ref = await vscode.commands.executeCommand<{ jobId: string }>('firecrest.submitJob', { uri: uri(`${dir}/smoke.sbatch`), profile: PROFILE, system: t.system, workingDirectory: dir, partition });
    assert.match(ref.jobId, /^\d+$/);
    const output = await vscode.commands.executeCommand<string>('firecrest.openJobOutput', { profile: PROFILE, system: t.system, jobId: ref.jobId });
    const done = await waitFor('the followed output to end', async () => {
      const s = await vscode.commands.executeCommand<OutputSnap | undefined>('firecrest.test.outputDocument', output);
      return s?.done ? s : undefined;
    }, 180_000);
    assert.equal(done.text, `line 1 ${tag}\nline 2 ${tag}\nline 3 ${tag}\n[Job ${ref.jobId} completed with exit code 0.]\n`);
  });
});
