/**
 * Dependencies (issue #23), in a real VS Code: a job submitted to run after another shows, while it
 * pends, what it waits for and how that job is doing; once that job is cancelled, the dependency
 * can never be met and the row says so with a warning. A dependency that is not Slurm's syntax is
 * refused before anything is submitted.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { SnapshotNode } from '../../src/views/treeSnapshot';
import { target } from '../support/target';
import { testPartition } from './support/apiVersion';
import { addTestConnection, extensionApi, firecrestLogText, waitFor } from './support/extension';
import { jobsFolder } from '../support/jobsFolder';

const PROFILE = 'deps-test';

interface Ref { profile: string; system: string; jobId: string }
const jobsTree = async () => await vscode.commands.executeCommand<{ tree: SnapshotNode[] }>('firecrest.test.jobsTree');

async function row(jobId: string): Promise<SnapshotNode | undefined> {
  const walk = (ns: SnapshotNode[]): SnapshotNode | undefined => {
    for (const n of ns) {
      if (n.contextValue?.includes(';job;') && n.label.startsWith(`${jobId} `)) return n;
      const found = walk(n.children ?? []);
      if (found) return found;
    }
    return undefined;
  };
  return walk((await jobsTree()).tree);
}

describe('Dependencies (Run after…)', function () {
  const t = target();
  let client: FirecrestClient;
  /** Where the jobs run (their output files go with it), in the user's home. */
  let jobs: { path: string; remove: () => Promise<void> } | undefined;
  const running: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'fc-deps-'));
  const tag = Math.random().toString(36).slice(2, 8);

  before(async () => {
    let home: string;
    ({ client, home } = await addTestConnection(PROFILE));
    jobs = await jobsFolder(client, t.system, home, 'fc-deps-jobs');
    await vscode.commands.executeCommand('firecrest.jobs.focus');
  });

  after(async () => {
    for (const id of running) await client.cancelJob(t.system, id).catch(() => undefined);
    await jobs?.remove();
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('a job submitted to run after another says what it waits for, then that it never starts once that job is cancelled', async function () {
    this.timeout(180_000);
    const partition = await testPartition(client, t.system);
    const first = await client.submitJob(t.system, { script: '#!/bin/bash\nsleep 300\n', workingDirectory: jobs!.path, name: `fc-deps-first-${tag}`, partition });
    running.push(first);
    const file = join(dir, `after-${tag}.sh`);
    writeFileSync(file, `#!/bin/bash\n#SBATCH --partition=${partition}\n#SBATCH --job-name=fc-deps-then-${tag}\n#SBATCH --time=00:01:00\necho done\n`);
    const then = await vscode.commands.executeCommand<Ref>('firecrest.submitJob', { uri: vscode.Uri.file(file), profile: PROFILE, system: t.system, workingDirectory: jobs!.path, dependency: `afterok:${first}` });
    assert.ok(then?.jobId);
    running.push(then.jobId);

    const waiting = await waitFor('the dependent job pending, saying what it waits for', async () => {
      await vscode.commands.executeCommand('firecrest.jobs.refresh');
      const r = await row(then.jobId);
      return r && new RegExp(`^Dependency · waits for ${first} \\((RUNNING|PENDING)\\)`).test(r.description ?? '') ? r : undefined;
    }, 90_000);
    assert.ok(waiting);
    // Its details say what it waits for, read from its script (any job's, v2).
    if (client.capabilities.jobScript) {
      const details = await vscode.commands.executeCommand<string>('firecrest.showJobDetails', then);
      const text = (await vscode.workspace.openTextDocument(vscode.Uri.parse(details))).getText();
      assert.match(text, new RegExp(`## Dependency[\\s\\S]*--dependency=afterok:${first}[\\s\\S]*- afterok: job ${first} \\(fc-deps-first-${tag}\\): (RUNNING|PENDING)`));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }

    await client.cancelJob(t.system, first);
    // Slurm keeps such a job pending (unless the site sets kill_invalid_depend, as the built-in
    // scheduler does after a second): the row says it will never start, or shows it cancelled.
    const never = await waitFor('the row saying it never starts', async () => {
      await vscode.commands.executeCommand('firecrest.jobs.refresh');
      const r = await row(then.jobId);
      return r && (/^DependencyNeverSatisfied · never starts: waits for \d+ \(CANCELLED/.test(r.description ?? '') || /^CANCELLED/.test(r.description ?? '')) ? r : undefined;
    }, 90_000);
    if (!/^CANCELLED/.test(never.description ?? '')) {
      assert.equal(never.icon, 'warning');
      assert.match(never.contextValue ?? '', /;cancelable;/, 'it can be cancelled from its row');
    }
  });

  it('runs a script already on the cluster (firecrest://) after another job', async function () {
    this.timeout(180_000);
    const partition = await testPartition(client, t.system);
    const first = await client.submitJob(t.system, { script: '#!/bin/bash\nsleep 300\n', workingDirectory: jobs!.path, name: `fc-deps-first2-${tag}`, partition });
    running.push(first);
    const remote = vscode.Uri.from({ scheme: 'firecrest', authority: `${PROFILE}@${t.system}`, path: `${jobs!.path}/remote-${tag}.sh` });
    await vscode.workspace.fs.writeFile(remote, new TextEncoder().encode(`#!/bin/bash\n#SBATCH --partition=${partition}\n#SBATCH --job-name=fc-deps-remote-${tag}\n#SBATCH --time=00:01:00\necho done\n`));
    const then = await vscode.commands.executeCommand<Ref>('firecrest.submitJob', { uri: remote, profile: PROFILE, system: t.system, workingDirectory: jobs!.path, dependency: `afterok:${first}` });
    assert.ok(then?.jobId, 'submitted');
    running.push(then.jobId);
    await waitFor('the job from the cluster waiting for the first', async () => {
      await vscode.commands.executeCommand('firecrest.jobs.refresh');
      const r = await row(then.jobId);
      return r && new RegExp(`^Dependency · waits for ${first}`).test(r.description ?? '') ? r : undefined;
    }, 90_000);
  });

  it('stops a script sbatch would refuse before asking or submitting anything (#41 item 8)', async () => {
    const api = await extensionApi();
    const file = join(dir, `broken-${tag}.sh`);
    writeFileSync(file, '#!/bin/bash\n#SBATCH --time=00:01:00\n#SBATCH --no-such-option=1\necho never\n');
    const mark = firecrestLogText(api).length;
    const result = await vscode.commands.executeCommand<Ref | undefined>('firecrest.submitJob', { uri: vscode.Uri.file(file), profile: PROFILE, system: t.system, workingDirectory: jobs!.path, ask: 'all' });
    assert.equal(result, undefined);
    assert.match(firecrestLogText(api).slice(mark), new RegExp(`broken-${tag}\\.sh line 3: .*sbatch would refuse it`));
    assert.ok(!(await client.jobs(t.system)).some((j) => j.name === `broken-${tag}.sh`), 'no job was submitted');
  });

  it('the first Submit of a script on the cluster that sets nothing asks nothing: it runs in its folder, on the defaults (#41 item 8)', async function () {
    this.timeout(90_000);
    const api = await extensionApi();
    const name = `plain-${tag}.sh`;
    await client.uploadSmall(t.system, jobs!.path, name, new TextEncoder().encode('#!/bin/bash\n#SBATCH --time=00:01:00\necho plain\n'));
    const authority = api.connections.multiProfile ? `${encodeURIComponent(PROFILE)}@${t.system}` : t.system;
    const uri = vscode.Uri.from({ scheme: 'firecrest', authority, path: `${jobs!.path}/${name}` });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    // As the title button calls it: with the file's Uri, which asks what is missing.
    const submitted = vscode.commands.executeCommand<Ref | undefined>('firecrest.submitJob', uri);
    let timer: NodeJS.Timeout | undefined;
    const asked = new Promise<'asked'>((r) => { timer = setTimeout(() => r('asked'), 30_000); });
    const first = await Promise.race([submitted, asked]);
    clearTimeout(timer);
    if (first === 'asked') {
      // A question is waiting: dismiss it so the next cases can run.
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.fail('Submit asked a question although the script and the defaults answer everything');
    }
    assert.ok(first?.jobId, 'submitted');
    running.push(first.jobId);
    const job = await client.job(t.system, first.jobId);
    if (job.workingDirectory !== undefined) assert.equal(job.workingDirectory, jobs!.path, 'the script\'s own folder');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('refuses a dependency that is not Slurm syntax before submitting anything', async () => {
    const file = join(dir, `bad-${tag}.sh`);
    writeFileSync(file, '#!/bin/bash\necho never\n');
    const result = await vscode.commands.executeCommand<Ref | undefined>('firecrest.submitJob', { uri: vscode.Uri.file(file), profile: PROFILE, system: t.system, workingDirectory: jobs!.path, dependency: 'afterok:1\nrm -rf ~' });
    assert.equal(result, undefined);
    assert.ok(!(await client.jobs(t.system)).some((j) => j.name === `bad-${tag}.sh`), 'no job was submitted');
  });
});
