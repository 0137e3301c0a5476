/**
 * The remote-file commands through their argument forms (the same code as from the Explorer's
 * context menu, minus the prompts): chmod, symlink, checksum, file type, copy path.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { extensionApi, firecrestLogText, waitFor } from './support/extension';
import { connectWithScratchFolder } from './support/scratch';
import { target } from '../support/target';

const PROFILE = 'fs-commands-test';

describe('remote file commands', () => {
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });
  const content = new TextEncoder().encode('#!/bin/bash\necho hello\n');

  before(async () => {
    const scratch = await connectWithScratchFolder(PROFILE, 'fs-cmd');
    ({ client, base } = scratch);
    await vscode.workspace.fs.writeFile(uri(base.joinPath('run.sh')), content);
  });

  after(async () => {
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('Open Remote Folder refuses in words a folder that is missing or unreadable, and adds nothing (#41 item 3)', async () => {
    const api = await extensionApi();
    const locked = base.joinPath('locked');
    await vscode.workspace.fs.createDirectory(uri(locked));
    await client.chmod(t.system, locked.path, '000');
    try {
      const folders = vscode.workspace.workspaceFolders?.length ?? 0;
      const mark = firecrestLogText(api).length;
      await vscode.commands.executeCommand('firecrest.openRemoteFolder', { system: t.system, path: locked.path, profile: PROFILE });
      await vscode.commands.executeCommand('firecrest.openRemoteFolder', { system: t.system, path: `${base.path}/no-such-folder`, profile: PROFILE });
      const log = await waitFor('both refusals in the log', () => {
        const text = firecrestLogText(api).slice(mark);
        return /You may not read .*locked on .* \(permission denied\)/.test(text) && /There is no folder .*no-such-folder on /.test(text) ? text : undefined;
      });
      assert.doesNotMatch(log, /firecrest\.openRemoteFolder: .*Remote process failed/, 'no raw server text as the message');
      assert.equal(vscode.workspace.workspaceFolders?.length ?? 0, folders, 'nothing was added');
    } finally {
      await client.chmod(t.system, locked.path, '755');
    }
  });

  it("hides the servers' and the extension's own files (transfer-job logs, temporary names) from the Explorer (#41 item 9)", () => {
    const exclude = vscode.workspace.getConfiguration('files', uri(base)).get<Record<string, boolean>>('exclude') ?? {};
    assert.equal(exclude['**/.f7t_file_handling_job_*'], true);
    assert.equal(exclude['**/.f7t-*'], true);
    assert.equal(exclude['**/.git'], true, "VS Code's own defaults stay");
  });

  it('registers every file command', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const id of ['openRemoteFolder', 'files.copyPath', 'files.download', 'files.upload', 'files.checksum', 'files.fileType', 'files.chmod', 'files.chown', 'files.symlink', 'files.compress', 'files.extract']) {
      assert.ok(all.includes(`firecrest.${id}`), `firecrest.${id}`);
    }
  });

  it('changes permissions, and a later save keeps them', async () => {
    const file = base.joinPath('run.sh');
    await vscode.commands.executeCommand('firecrest.files.chmod', uri(file), { mode: '750' });
    const perms = async () => (await client.list(t.system, file.path))[0].permissions;
    assert.equal(await perms(), 'rwxr-x---');
    await vscode.workspace.fs.writeFile(uri(file), new TextEncoder().encode('#!/bin/bash\necho changed\n'));
    assert.equal(await perms(), 'rwxr-x---', 'the save through a temporary file kept the mode');
  });

  it('creates a symbolic link the Explorer shows as a link to a file', async () => {
    await vscode.commands.executeCommand('firecrest.files.symlink', uri(base.joinPath('run.sh')), { linkPath: 'run-link.sh' });
    const st = await vscode.workspace.fs.stat(uri(base.joinPath('run-link.sh')));
    assert.equal(st.type, vscode.FileType.SymbolicLink | vscode.FileType.File);
  });

  it('shows the SHA-256 checksum and the file type of a remote file', async () => {
    const file = uri(base.joinPath('run.sh'));
    const data = await vscode.workspace.fs.readFile(file);
    const sum = await vscode.commands.executeCommand<{ algorithm: string; checksum: string }>('firecrest.files.checksum', file);
    assert.equal(sum.checksum.toLowerCase(), createHash('sha256').update(data).digest('hex'));
    const type = await vscode.commands.executeCommand<string>('firecrest.files.fileType', file);
    assert.match(type, /script|text/i);
  });
});
