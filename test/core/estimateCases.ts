/**
 * Where a script would start soonest: one side-car job runs `sbatch --test-only` per partition. On
 * Slurm each of the test cluster's idle partitions answers with a start about now and its node; a
 * partition that does not exist answers with sbatch's refusal, listed last.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiVersion, FirecrestClient } from '../../src/core/index';
import { startEstimates } from '../../src/core/facts/startEstimate';
import { client, scratchDir, t } from './support';

const S = t.system;
const builtIn = t.gateway?.scheduler === 'local';

export function estimateSuite(api: ApiVersion): void {
  void describe(`facts: expected start per partition (API ${api})`, () => {
    let c: FirecrestClient;
    let dir: string;
    before(async () => {
      c = await client({}, { apiVersion: api });
      dir = await scratchDir(c, 'estimate');
    });
    after(async () => {
      await c.remove(S, dir).catch(() => undefined);
      await c.dispose();
    });

    void it('each partition: Slurm\'s start estimate and nodes, without submitting; a refusal in words, last', { skip: builtIn ? 'needs Slurm\'s sbatch --test-only: the built-in scheduler has no estimates' : false }, async () => {
      const partitions = (await c.partitions(S)).map((p) => p.name);
      assert.ok(partitions.length > 0);
      const script = "#!/bin/bash\n#SBATCH --time=00:05:00\n#SBATCH --job-name=f7t-never-runs\n#SBATCH --partition=whatever-the-script-says\necho never runs\n";
      let jobs = 0;
      const before = Date.now() / 1000;
      const r = await startEstimates(c, S, script, [...partitions, 'no-such-partition'], { scratchDir: dir, workingDirectory: dir, onSubmitted: () => jobs++ });
      assert.equal(jobs, 1, 'one side-car job for every partition');
      assert.ok(r.stats!.requests - r.stats!.waitRequests <= 3);
      assert.equal(r.estimates.length, partitions.length + 1);
      const last = r.estimates.at(-1)!;
      assert.equal(last.partition, 'no-such-partition');
      assert.match(last.refused ?? '', /partition/i);
      const up = r.estimates.filter((e) => e.startTime !== undefined);
      assert.ok(up.length >= 1, JSON.stringify(r.estimates));
      for (const e of up) {
        assert.ok(e.startTime! >= before - 120 && e.startTime! < before + 30 * 86400, `${e.partition}: ${e.startTime}`);
        assert.ok(e.nodes && e.nodes.length > 0);
      }
      // Sorted soonest first.
      assert.deepEqual(up.map((e) => e.startTime), [...up.map((e) => e.startTime)].sort((a, b) => a! - b!));
      // Nothing was submitted under the script's name.
      const named = await c.jobs(S, { name: 'f7t-never-runs' }).catch(() => []);
      assert.equal(named.length, 0);
    });
  });
}
