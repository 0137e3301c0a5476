/**
 * A folder listed while entries in it disappear (a job cleaning up, the background removal of a
 * transfer job's logs after a save): `ls` on the server fails as a whole when an entry vanishes
 * between reading the folder and looking at the entry. The client looks again; no listing fails.
 * Two files at a time, as when a save's move-job logs are removed. Found by the host reliability suite (a save in the home folder next to the removal of the
 * previous save's move-job logs failed with FileNotFound).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FirecrestClient } from '../../src/core/index';
import { client, scratchDir, t } from '../core/support';

const S = t.system;
const N = 1000;
const BURSTS = 150;

// Both API generations: v1 servers run `ls` too, and the v1 client looks again the same way.
for (const apiVersion of ['v2', 'v1'] as const) {
  const url = apiVersion === t.apiVersion ? t.url : apiVersion === 'v1' ? t.gateway?.v1 : t.gateway?.v2;
  void describe(`listing while entries vanish (API ${apiVersion})`, { skip: url ? false : `the deployment answers API ${t.apiVersion} only` }, () => {
  let c: FirecrestClient;
  let dir: string;
  let retriedAway = 0;

  before(async () => {
    c = await client({}, { apiVersion, url }, { onRequest: (e) => { if (/\/(ops|utilities)\/ls$/.test(e.route) && e.status !== undefined && e.status >= 400) retriedAway++; } });
    dir = await scratchDir(c, 'vanishing');
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it(`every listing succeeds while a job removes files two at a time, ${BURSTS} times`, async () => {
    const fill = await c.submitJob(S, { workingDirectory: dir, name: 'f7t-vanish-fill', script: `#!/bin/bash\nmkdir -p d && cd d && seq 1 ${N} | sed 's/^/f/' | xargs touch\n` });
    assert.equal((await c.waitForJob(S, fill, { overallTimeoutMs: 300_000 })).state, 'COMPLETED');
    assert.equal((await c.list(S, `${dir}/d`)).length, N);
    const drain = await c.submitJob(S, { workingDirectory: dir, name: 'f7t-vanish-drain', script: `#!/bin/bash\ncd d && for i in $(seq 1 2 ${2 * BURSTS}); do rm -f f$i f$((i + 1)); sleep 0.05; done\n` });
    let listings = 0;
    const failures: string[] = [];
    // List until the job has ended: each listing must succeed.
    for (let i = 0; i < 2000; i++) {
      try {
        await c.list(S, `${dir}/d`);
        listings++;
      } catch (e) {
        failures.push(e instanceof Error ? e.message : String(e));
        if (failures.length > 5) break;
      }
      if (i % 10 === 9 && (await c.job(S, drain)).isFinal) break;
    }
    await c.waitForJob(S, drain, { overallTimeoutMs: 300_000 });
    console.log(`[vanishing, API ${apiVersion}] ${listings} listings, ${retriedAway} failed ls answers looked at again, ${failures.length} failures`);
    assert.deepEqual(failures, []);
    assert.ok(listings > 0);
  });
});
}
