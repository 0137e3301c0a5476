/**
 * Sync and submit (issue #21) in a real VS Code: a local project folder is mapped to a cluster
 * directory (Map Folder to Cluster, which creates it), Sync and Submit sends the project and runs
 * its batch script there, and the job's results come back through Fetch from Cluster.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { target } from '../support/target';
import { testPartition, skipBecause } from './support/apiVersion';
import { addTestConnection, waitFor } from './support/extension';

const PROFILE = 'sync-test';

describe('Sync and submit a local project', function () {
  const t = target();
  let client: FirecrestClient;
  let remoteDir: string;
  const tag = Math.random().toString(36).slice(2, 8);
  const workspace = vscode.workspace.workspaceFolders?.[0];
  const project = mkdtempSync(join(workspace?.uri.fsPath ?? tmpdir(), 'fc-sync-'));
  const script = join(project, 'run.sh');

  before(async () => {
    let home: string;
    ({ client, home } = await addTestConnection(PROFILE));
    remoteDir = `${home}/fc-sync-${tag}`;
    const partition = await testPartition(client, t.system);
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'compute.sh'), '#!/bin/bash\necho "$(( $1 * 7 ))"\n');
    chmodSync(join(project, 'src', 'compute.sh'), 0o755);
    writeFileSync(join(project, 'input.txt'), '6\n');
    writeFileSync(join(project, '.gitignore'), 'scratch/\n');
    mkdirSync(join(project, 'scratch'));
    writeFileSync(join(project, 'scratch', 'notes.txt'), 'local only');
    writeFileSync(script, [
      '#!/bin/bash',
      `#SBATCH --partition=${partition}`,
      `#SBATCH --job-name=fc-sync-${tag}`,
      '#SBATCH --time=00:02:00',
      '#SBATCH --output=job-%j.txt',
      'mkdir -p results',
      './src/compute.sh "$(cat input.txt)" > results/answer.txt',
      'ls scratch > results/scratch.txt 2>&1 || echo "no scratch" > results/scratch.txt',
      '',
    ].join('\n'));
  });

  after(async () => {
    if (workspace) await vscode.workspace.getConfiguration('firecrest', workspace.uri).update('sync.mappings', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    await client?.remove(t.system, remoteDir).catch(() => undefined);
    rmSync(project, { recursive: true, force: true });
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('maps the folder, syncs and submits its script there, and fetches what the job wrote', async function () {
    if (!workspace) return skipBecause(this, 'needs a local workspace folder');
    this.timeout(240_000);
    const remote = `firecrest://${PROFILE}@${t.system}${remoteDir}`;
    const mapped = await vscode.commands.executeCommand<{ local: string; remote: string } | undefined>('firecrest.sync.mapFolder', { local: project, remote, create: true, where: 'settings' });
    assert.equal(mapped?.remote, remote);
    const mappings = vscode.workspace.getConfiguration('firecrest', workspace.uri).get<{ local: string; remote: string }[]>('sync.mappings') ?? [];
    assert.ok(mappings.some((m) => m.remote === remote), JSON.stringify(mappings));
    assert.equal((await client.stat(t.system, remoteDir)).size >= 0, true, 'the remote directory was created');

    const done = await vscode.commands.executeCommand<{ ref?: { jobId: string }; sync?: { sent: string[] } } | undefined>('firecrest.sync.andSubmit', { uri: script, preview: false, ask: 'none' });
    assert.ok(done?.ref, 'a job was submitted');
    assert.deepEqual(done.sync?.sent.sort(), ['.gitignore', 'input.txt', 'run.sh', 'src/compute.sh']);
    const job = await client.waitForJob(t.system, done.ref.jobId, { overallTimeoutMs: 180_000 });
    assert.match(job.state, /COMPLETED/, `the job ran in the synced directory (${job.state})`);

    const fetched = await vscode.commands.executeCommand<{ fetched: string[] } | undefined>('firecrest.sync.fetch', { uri: project });
    assert.deepEqual(fetched?.fetched.sort(), ['results/answer.txt', 'results/scratch.txt']);
    assert.equal(readFileSync(join(project, 'results', 'answer.txt'), 'utf8'), '42\n', 'the executable bit and the input travelled');
    assert.match(readFileSync(join(project, 'results', 'scratch.txt'), 'utf8'), /no scratch|No such file/, 'the .gitignored folder stayed here');
    assert.ok(existsSync(join(project, 'scratch', 'notes.txt')));

    // A second Sync and Submit sends nothing new (only the fetched results are known, not re-sent).
    const again = await vscode.commands.executeCommand<{ sync?: { sent: string[] } } | undefined>('firecrest.sync.toCluster', { uri: project, preview: false });
    assert.deepEqual((again as { sent?: string[] } | undefined)?.sent ?? again?.sync?.sent ?? [], []);
  });

  it('keeps a mapping in the workspace\'s storage when asked to: nothing is written into the repository, and it syncs all the same; a file written outside VS Code counts as waiting (#41 items 13, 15)', async function () {
    if (!workspace) return skipBecause(this, 'needs a local workspace folder');
    this.timeout(120_000);
    const other = mkdtempSync(join(workspace.uri.fsPath, 'fc-sync-kept-'));
    try {
      writeFileSync(join(other, 'data.txt'), 'kept\n');
      const settingsBefore = vscode.workspace.getConfiguration('firecrest', workspace.uri).inspect('sync.mappings')?.workspaceFolderValue;
      const remote = `firecrest://${PROFILE}@${t.system}${remoteDir}-kept`;
      const mapped = await vscode.commands.executeCommand<{ where: string } | undefined>('firecrest.sync.mapFolder', { local: other, remote, create: true, where: 'workspace' });
      assert.equal(mapped?.where, 'workspace');
      assert.deepEqual(vscode.workspace.getConfiguration('firecrest', workspace.uri).inspect('sync.mappings')?.workspaceFolderValue, settingsBefore, 'the settings are as they were');
      const sent = await vscode.commands.executeCommand<{ sent?: string[] } | undefined>('firecrest.sync.toCluster', { uri: other, preview: false });
      assert.deepEqual(sent?.sent, ['data.txt']);
      assert.equal(new TextDecoder().decode(await client.downloadSmall(t.system, `${remoteDir}-kept/data.txt`)), 'kept\n');
      // A file written outside VS Code (a script, a build) counts as waiting to be synced (#41 item 15).
      const status = async () => await vscode.commands.executeCommand<{ pending: number } | undefined>('firecrest.sync.status', { uri: other, quiet: true });
      await waitFor('nothing waiting after the sync', async () => (await status())?.pending === 0, 30_000);
      writeFileSync(join(other, 'made-outside.txt'), 'by a script\n');
      await waitFor('the change written outside VS Code counted', async () => (await status())?.pending === 1, 30_000);
    } finally {
      rmSync(other, { recursive: true, force: true });
      await client.remove(t.system, `${remoteDir}-kept`).catch(() => undefined);
    }
  });
});
