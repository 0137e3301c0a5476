/**
 * The v1 job listing over real HTTP lists recently finished jobs a connection never saw queued (as
 * v2's listing does): the window is asked for once per system and window, never per poll.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FirecrestClient, Job } from '../../src/core/index';
import { client, gateway, scratchDir, t } from './support';

/** `GET /compute/acct` requests the gateway saw since its counters were reset. */
async function acctRequests(): Promise<number> {
  const byRoute = (await gateway.stats()).byRoute;
  return Object.entries(byRoute).filter(([route]) => /^GET (\/v1)?\/compute\/acct$/.test(route)).reduce((n, [, count]) => n + count, 0);
}

void describe('v1 job listing: finished jobs of the look-back window', { skip: t.apiVersion !== 'v1' ? 'runs with --api v1' : false }, () => {
  let a: FirecrestClient;
  let dir: string;
  const S = t.system;
  const counted = !!t.gateway?.admin;
  const finishedJob = async (code: number): Promise<Job> => {
    const id = await a.submitJob(S, { name: 'v1-recent', workingDirectory: dir, script: `#!/bin/bash\n#SBATCH --time=00:02:00\nexit ${code}\n` });
    const done = await a.waitForJob(S, id, { overallTimeoutMs: 180_000 });
    assert.equal(done.isFinal, true, done.state);
    return done;
  };
  /** Window requests of a first listing: one page when the window holds fewer than 100 of the user's jobs, else the page count and the newest page as well. */
  const windowCost = async (seconds: number): Promise<number> => ((await a.accounting(S, { startTime: Math.floor(Date.now() / 1000) - seconds })).length < 100 ? 1 : 3);

  before(async () => {
    a = await client({}, { apiVersion: 'v1' });
    dir = await scratchDir(a, 'v1recent');
  });
  after(async () => {
    await a.remove(S, dir).catch(() => undefined);
    await a.dispose();
  });

  void it('a new client lists a job that finished before it started, with its exit code; later polls do not ask for the window again', async () => {
    const first = await finishedJob(3);
    assert.equal(first.exitCode, 3);
    const expected = counted ? await windowCost(86400) : 0;
    const b = await client({}, { apiVersion: 'v1' });
    try {
      if (counted) await gateway.resetStats();
      const listed = (await b.jobs(S)).find((j) => j.id === first.id);
      assert.ok(listed, `job ${first.id} is listed by a client that never saw it`);
      assert.equal(listed.isFinal, true, listed.state);
      assert.equal(listed.stateClass, 'failed', listed.state);
      assert.equal(listed.exitCode, 3);
      if (counted) assert.equal(await acctRequests(), expected, 'the first listing asks for the window once (sacct pages: 1, or 3 for a window of 100 jobs or more)');

      // A job that starts and ends between two polls of b, which never sees it queued: only the
      // window could show it, and later polls do not ask for the window again.
      const second = await finishedJob(0);
      if (counted) await gateway.resetStats();
      const polls = 3;
      for (let i = 0; i < polls; i++) {
        const later = await b.jobs(S);
        assert.ok(later.some((j) => j.id === first.id), 'still listed');
        assert.ok(!later.some((j) => j.id === second.id), `poll ${i + 1}: the window is not asked for again`);
      }
      // By id only: at most one sacct task a listing (when the departed set changed or 30 s passed).
      if (counted) assert.ok((await acctRequests()) <= polls, `${await acctRequests()} acct requests for ${polls} polls`);

      // A longer look-back window is asked for once more.
      const wide = await b.jobs(S, { timeWindow: '7d' });
      const seen = wide.find((j) => j.id === second.id);
      assert.ok(seen, `job ${second.id} is listed once the window grew`);
      assert.equal(seen.exitCode, 0);
      assert.equal(seen.stateClass, 'completed', seen.state);
      const again = await b.jobs(S, { timeWindow: '7d' });
      assert.ok(again.some((j) => j.id === second.id) && again.some((j) => j.id === first.id), 'kept fresh by id afterwards');
    } finally {
      await b.dispose();
    }
  });
});
