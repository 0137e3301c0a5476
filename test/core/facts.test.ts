/**
 * Facts the API does not give, from side-car jobs: job efficiency from Slurm's accounting. On a
 * real Slurm (the gateway's Slurm backend, the real servers) a job that used a known amount of
 * memory and CPU reports it, with a right-sized request; the built-in scheduler keeps no
 * accounting and says so in words. Each answer costs one job and three requests beyond the wait.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnavailableError, type FirecrestClient } from '../../src/core/index';
import { jobEfficiency, rightSize } from '../../src/core/facts/efficiency';
import { client, scratchDir, t } from './support';

const S = t.system;
const builtIn = t.gateway?.scheduler === 'local';

void describe('facts: job efficiency', () => {
  let c: FirecrestClient;
  let dir: string;
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'facts');
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('a finished job: CPU, memory and time against what it asked for, and a right-sized request', { skip: builtIn ? 'needs Slurm accounting: the built-in scheduler keeps none (tested below)' : false }, async () => {
    // About 200 MiB held for a few seconds by one busy process, on 1 CPU, asking for 1 GiB and 10 minutes.
    const script = "#!/bin/bash\n#SBATCH --time=00:10:00\n#SBATCH --mem=1G\n#SBATCH --cpus-per-task=1\nsrun python3 -c 'import time\nb = b\"x\" * (200 * 1024 * 1024)\nt = time.time()\nwhile time.time() - t < 4: pass'\n";
    const id = await c.submitJob(S, { script, workingDirectory: dir, name: 'facts-eff' });
    await c.waitForJob(S, id, { overallTimeoutMs: 120_000 });
    let report;
    let eff;
    // slurmdbd records a job's steps shortly after it ends: asked again until its memory is in
    // (where the cluster records use at all).
    for (let i = 0; i < 20 && (!eff?.complete || (report?.usageRecorded !== false && !eff.maxRssBytes)); i++) {
      let jobs = 0;
      report = await jobEfficiency(c, S, [id], { scratchDir: dir, workingDirectory: dir, onSubmitted: () => jobs++ });
      eff = report.jobs.get(id);
      assert.equal(jobs, 1, 'one job per answer');
    }
    assert.ok(report?.gatherType, 'the report says how the cluster gathers use');
    assert.ok(eff, 'the job is in the report');
    assert.equal(eff.cpus, 1);
    assert.equal(eff.memoryBytes, 2 ** 30);
    assert.equal(eff.timeLimitSeconds, 600);
    assert.ok(eff.elapsedSeconds >= 4 && eff.elapsedSeconds < 600);
    if (report.usageRecorded === false) {
      // e.g. the real v2 recipe's jobacct_gather/none: use unknown, said so; never a made-up figure.
      assert.equal(eff.maxRssBytes, undefined);
      assert.equal(eff.cpuEfficiency, undefined);
      return;
    }
    assert.ok(eff.maxRssBytes! > 150 * 2 ** 20 && eff.maxRssBytes! < 2 ** 30, `MaxRSS ${eff.maxRssBytes}`);
    assert.ok(eff.cpuEfficiency! > 0 && eff.cpuEfficiency! <= 1);
    const next = rightSize(eff);
    assert.ok(next.mem && next.time);
    assert.ok(Number(next.mem.replace(/[MG]$/, '')) * (next.mem.endsWith('G') ? 1024 : 1) * 2 ** 20 >= eff.maxRssBytes!, 'never below what it used');
  });

  void it('the built-in scheduler keeps no accounting: efficiency is not available, in words', { skip: builtIn ? false : 'the built-in scheduler only' }, async () => {
    await assert.rejects(jobEfficiency(c, S, ['1'], { scratchDir: dir, workingDirectory: dir }), (e: unknown) => {
      assert.ok(e instanceof UnavailableError, String(e));
      assert.match(e.message, new RegExp(`^job efficiency is not available on ${S}: `));
      return true;
    });
  });

  void it('refuses ids that are not Slurm job ids before submitting anything', async () => {
    await assert.rejects(jobEfficiency(c, S, ['1;rm -rf ~'], { scratchDir: dir, workingDirectory: dir }), /is not a Slurm job id/);
  });
});
