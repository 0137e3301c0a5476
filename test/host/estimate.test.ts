/**
 * Where Would This Script Start Soonest? in a real VS Code: Slurm's estimate for each open
 * partition from one short job (`sbatch --test-only`), soonest first, without submitting; the
 * partition chosen gets the submission. The built-in scheduler has no estimates.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { StartEstimate } from '../../src/core/facts/startEstimate';
import { target } from '../support/target';
import { extensionApi, waitFor } from './support/extension';

const PROFILE = 'estimate-test';

describe('Where Would This Script Start Soonest?', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;

  before(async function () {
    if (t.gateway?.scheduler === 'local') return this.skip(); // needs Slurm's sbatch --test-only: the built-in scheduler has no estimates
    const api = await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
  });

  after(async () => {
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('estimates each open partition without submitting; the one chosen gets the job', async () => {
    const name = `f7t-where-${Date.now().toString(36)}`;
    const file = join(mkdtempSync(join(tmpdir(), 'fc-where-')), 'run.sbatch');
    writeFileSync(file, `#!/bin/bash\n#SBATCH --job-name=${name}\n#SBATCH --time=00:02:00\ntrue\n`);
    const uri = vscode.Uri.file(file);
    const looked = await vscode.commands.executeCommand<{ estimates: StartEstimate[]; partition?: string }>('firecrest.whereWouldItStart', { uri, profile: PROFILE, system: t.system, choose: '' });
    const open = (await client.partitions(t.system)).filter((p) => !p.state || /^up$/i.test(p.state)).map((p) => p.name);
    assert.deepEqual(looked.estimates.map((e) => e.partition).sort(), [...open].sort(), 'every open partition');
    const soonest = looked.estimates[0];
    assert.ok(soonest.startTime !== undefined && soonest.startTime < Date.now() / 1000 + 7 * 86400, JSON.stringify(soonest));
    assert.equal(looked.partition, undefined);
    assert.equal((await client.jobs(t.system, { name })).length, 0, 'nothing submitted while looking');

    const chosen = await vscode.commands.executeCommand<{ partition?: string }>('firecrest.whereWouldItStart', { uri, profile: PROFILE, system: t.system, choose: soonest.partition });
    assert.equal(chosen.partition, soonest.partition);
    const job = await waitFor('the job submitted to the chosen partition', async () => (await client.jobs(t.system, { name, timeWindow: '1h' })).find((j) => j.name === name), 30_000);
    assert.equal(job.partition, soonest.partition);
    await client.waitForJob(t.system, job.id, { overallTimeoutMs: 120_000 }).catch(() => undefined);
  });
});
