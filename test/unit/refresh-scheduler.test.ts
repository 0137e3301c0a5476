/**
 * The refresh scheduler's "refreshed" wait: it ends with a run begun after the call, never with the
 * run already under way (that one may have listed before the job the caller looks for existed: the
 * Jobs view's Reveal and the host tests wait on this). A hidden view runs nothing: the wait ends
 * false at its deadline, and on dispose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RefreshScheduler } from '../../src/common/refreshScheduler';

/** A listing that reads the queue when it begins and ends when the test lets it. */
function server() {
  const queue = new Set<string>();
  const runs: { listed: string[]; end(): void }[] = [];
  let shown: string[] = [];
  const begun: (() => void)[] = [];
  const scheduler = new RefreshScheduler({
    debounceMs: 0,
    run: async () => {
      const listed = [...queue];
      await new Promise<void>((end) => {
        runs.push({ listed, end });
        begun.splice(0).forEach((f) => f());
      });
      shown = listed;
      return {};
    },
  });
  /** Resolves once `n` runs have begun. */
  const runsBegun = async (n: number): Promise<void> => {
    while (runs.length < n) await new Promise<void>((r) => begun.push(r));
  };
  return { queue, runs, scheduler, runsBegun, shown: () => shown };
}

/** Whether `p` settles within a few turns of the event loop. */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

/** A visible view whose first listing is out (not ended). */
async function firstListingOut() {
  const s = server();
  s.scheduler.setVisible(true);
  await s.runsBegun(1);
  return s;
}

/** Ends the second listing and checks that the wait ended with it, showing `jobs`. */
async function secondListingShows(s: ReturnType<typeof server>, wait: Promise<boolean>, jobs: string[]) {
  await s.runsBegun(2);
  s.runs[1].end();
  assert.equal(await wait, true);
  assert.deepEqual(s.shown(), jobs);
  s.scheduler.dispose();
}

void describe('refresh scheduler: waiting for a fresh run', () => {
  void it('does not end with the run under way when it was asked, but with the next one, which shows the new job', async () => {
    const s = await firstListingOut();
    // A job is submitted while the first listing is out: that listing cannot have it.
    s.queue.add('812');
    const wait = s.scheduler.refreshed('manual', 10_000);
    s.runs[0].end();
    assert.equal(await settlesSoon(wait), false, 'the run under way ended: still waiting');
    assert.deepEqual(s.shown(), [], 'the first listing did not have the job');
    await secondListingShows(s, wait, ['812']);
  });

  void it('with nothing under way, ends with the run it asked for', async () => {
    const s = await firstListingOut();
    s.runs[0].end();
    await new Promise((r) => setImmediate(r));
    s.queue.add('813');
    await secondListingShows(s, s.scheduler.refreshed('manual', 10_000), ['813']);
  });

  void it('a hidden view lists nothing: false at the deadline, and false on dispose', async () => {
    const s = server();
    assert.equal(await s.scheduler.refreshed('manual', 50), false);
    assert.equal(s.runs.length, 0, 'nothing ran while hidden');
    const pending = s.scheduler.refreshed('manual', 60_000);
    s.scheduler.dispose();
    assert.equal(await pending, false);
  });
});
