/**
 * The Jobs view on an API v1 connection lists a job that finished before the connection was added:
 * v1's queue no longer holds it, the look-back window's accounting (asked once) does.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SnapshotNode } from '../../src/views/treeSnapshot';
import { target } from '../support/target';
import { extensionApi, waitFor } from './support/extension';
import { jobsFolder } from '../support/jobsFolder';
import { skipBecause } from './support/apiVersion';

const BEFORE = 'v1-recent-before';
const AFTER = 'v1-recent-after';

interface JobsSnap {
  visible: boolean;
  tree: SnapshotNode[];
}

const jobsTree = async () => await vscode.commands.executeCommand<JobsSnap>('firecrest.test.jobsTree');

/** The row of `jobId` and the group it is in. */
async function findJob(jobId: string): Promise<{ group: string; row: SnapshotNode } | undefined> {
  const walk = (nodes: SnapshotNode[], group: string): { group: string; row: SnapshotNode } | undefined => {
    for (const n of nodes) {
      if (n.contextValue?.includes(';job;') && n.label.startsWith(`${jobId} `)) return { group, row: n };
      const found = n.children && walk(n.children, n.contextValue?.includes(';jobGroup;') ? n.label : group);
      if (found) return found;
    }
    return undefined;
  };
  return walk((await jobsTree()).tree, '');
}

describe('Jobs view on API v1: jobs that finished before the connection was added', function () {
  // Longer than the runner's default: several tests here wait for a job to run and end, then for
  // a listing (on API v1, tasks) to show it.
  this.timeout(240_000);
  const t = target();
  const connect = (name: string) => vscode.commands.executeCommand('firecrest.addConnection', {
    name, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
  });
  const remove = (name: string) => vscode.commands.executeCommand('firecrest.removeConnection', { name, confirmed: true });

  before(function () {
    skipBecause(this, t.apiVersion !== 'v1' ? 'runs with API v1' : undefined);
  });

  after(async () => {
    if (t.apiVersion !== 'v1') return;
    await remove(BEFORE).then(undefined, () => undefined);
    await remove(AFTER).then(undefined, () => undefined);
  });

  it('lists a job submitted and finished through a connection since removed, as finished with its exit code', async () => {
    const api = await extensionApi();
    await connect(BEFORE);
    const before = await api.connections.client(BEFORE);
    const jobs = await jobsFolder(before, t.system, `/home/${(await before.userInfo(t.system)).user.name}`, 'fc-v1-recent-jobs');
    const id = await before.submitJob(t.system, { name: 'v1-recent-host', workingDirectory: jobs.path, script: '#!/bin/bash\n#SBATCH --time=00:02:00\nexit 4\n' });
    const done = await before.waitForJob(t.system, id, { overallTimeoutMs: 180_000 }).finally(jobs.remove);
    assert.equal(done.exitCode, 4, done.state);
    await remove(BEFORE);

    await connect(AFTER);
    await vscode.commands.executeCommand('firecrest.jobs.focus');
    await waitFor('the Jobs view to be visible', async () => (await jobsTree()).visible);
    const found = await waitFor(`job ${id} in Recently finished`, async () => {
      const f = await findJob(id);
      if (f?.group === 'Recently finished') return f;
      await vscode.commands.executeCommand('firecrest.jobs.refresh');
      return undefined;
    }, 90_000);
    assert.match(found.row.description ?? '', /^FAILED · exit 4/);
  });
});
