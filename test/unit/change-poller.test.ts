/**
 * The change poller's schedule in an idle window (issue 41 item 7): a folder nobody changes is
 * listed after about 3, 9, 21 and 45 s, and once it has been quiet a minute, never twice within a
 * minute; a change snaps it back to 3 s. Driven by Node's mock clock: ten idle minutes in no time.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { ChangePoller } from '../../src/fs/changePoller';
import type { Listing } from '../../src/fs/entries';
import { FirecrestUri } from '../../src/core/uri';

const dir = FirecrestUri.from({ system: 'c', path: '/home/u/project' });

async function run(ms: number): Promise<void> {
  // Step a second at a time and let the awaited listing settle between steps.
  for (let t = 0; t < ms; t += 1000) {
    mock.timers.tick(1000);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

void describe('change poller schedule', () => {
  void it('an idle folder: quick at first, then at most one listing a minute; a change snaps back', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const listedAt: number[] = [];
      let entries = new Map<string, { name: string; type: number; size: number; mtime: number; permissions: string }>();
      const poller = new ChangePoller({
        list: async (): Promise<Listing> => { listedAt.push(Date.now()); return { entries: new Map(entries) }; },
        isDirectory: async () => true,
        emit: () => undefined,
        now: () => Date.now(),
      });
      poller.watch(dir, true);
      await run(10 * 60_000);
      const s = listedAt.map((t) => t / 1000);
      assert.ok(s[0] <= 4, `first look after ${s[0]} s`);
      assert.deepEqual([s[1] - s[0], s[2] - s[1], s[3] - s[2]], [6, 12, 24], 'quick while the folder may still change');
      const afterQuietMinute = listedAt.filter((t, i) => i > 0 && t > 60_000).map((t) => t - listedAt[listedAt.indexOf(t) - 1]);
      assert.ok(afterQuietMinute.every((gap) => gap >= 60_000), `gaps after a quiet minute: ${afterQuietMinute.map((g) => g / 1000).join(', ')} s`);
      assert.ok(s.length <= 4 + 10, `${s.length} listings in ten minutes`);
      // Something changes on the cluster: the next look comes 3 s after the one that saw it.
      entries = new Map([['new.txt', { name: 'new.txt', type: 1, size: 1, mtime: 1, permissions: '' }]]);
      const seen = listedAt.length;
      await run(61_000);
      const changedAt = listedAt[seen];
      assert.equal(listedAt[seen + 1] - changedAt, 3000);
      poller.dispose();
    } finally {
      mock.timers.reset();
    }
  });
});
