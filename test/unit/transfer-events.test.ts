/**
 * TransferEvents without VS Code: progress coalesced into few change events, starts and ends at
 * once, finished records kept in a Memento (a running one comes back as interrupted), Cancel
 * through the publisher's abort, Retry through a closure or a runner, the retried record replaced.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransferEvents, type TransferChange } from '../../src/common/transferEvents';

/** A Memento in memory. */
function memento(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    get<T>(key: string, fallback?: T): T {
      return (data.has(key) ? structuredClone(data.get(key)) : fallback) as T;
    },
    update(key: string, value: unknown): Thenable<void> {
      data.set(key, structuredClone(value));
      return Promise.resolve();
    },
  };
}

/** Manual timers and clock. */
function clock() {
  let now = 1_000;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return { dispose: () => void (t.live = false) };
    },
    advance(ms: number) {
      now += ms;
      for (const t of timers.filter((x) => x.live && x.at <= now)) {
        t.live = false;
        t.fn();
      }
    },
  };
}

void describe('TransferEvents', () => {
  void it('coalesces a burst of progress into one event per interval; start and end go out at once', () => {
    const c = clock();
    const events = new TransferEvents({ throttleMs: 250, now: c.now, setTimer: c.setTimer });
    const seen: TransferChange[] = [];
    events.onDidChange((e) => seen.push(e));
    const h = events.start({ kind: 'upload', remote: 'firecrest://cluster/home/u/big.bin', local: '/tmp/big.bin' });
    assert.equal(seen.length, 1, 'start at once');
    for (let i = 1; i <= 10_000; i++) h.report({ phase: 'uploading', bytesDone: i, bytesTotal: 10_000 });
    assert.equal(seen.length, 1, 'no event inside the interval');
    c.advance(250);
    assert.equal(seen.length, 2, 'one event after the interval');
    assert.equal(seen[1].changed[0].progress?.bytesDone, 10_000, 'with the latest progress');
    h.report({ phase: 'verified', bytesDone: 10_000, bytesTotal: 10_000, sha256: 'ab', verified: true });
    h.end();
    assert.equal(seen.length, 3, 'the end flushes at once');
    const r = events.get(h.id)!;
    assert.equal(r.state, 'done');
    assert.equal(r.verified, true);
    assert.equal(r.sha256, 'ab');
    assert.equal(r.source, '/tmp/big.bin');
    assert.equal(r.destination, 'firecrest://cluster/home/u/big.bin');
    c.advance(1000);
    assert.equal(seen.length, 3, 'nothing left pending');
  });

  void it('keeps finished records in the store; a running one comes back failed as interrupted; clear forgets them', async () => {
    const store = memento();
    const c = clock();
    const a = new TransferEvents({ store, now: c.now, setTimer: c.setTimer, saveDelayMs: 1000 });
    const done = a.start({ kind: 'download', remote: 'firecrest://c/x', local: '/tmp/x' });
    done.end();
    a.start({ kind: 'upload', remote: 'firecrest://c/y', local: '/tmp/y' });
    assert.equal(store.data.size, 0, 'starts and ends are written together, later');
    c.advance(1000);
    assert.equal(store.get<unknown[]>('firecrest.transfers', []).length, 2, 'one write for all three');
    const b = new TransferEvents({ store });
    const list = b.list();
    assert.equal(list.length, 2);
    assert.equal(list.find((r) => r.remote === 'firecrest://c/x')?.state, 'done');
    const interrupted = list.find((r) => r.remote === 'firecrest://c/y')!;
    assert.equal(interrupted.state, 'failed');
    assert.match(interrupted.error ?? '', /Interrupted/);
    const next = b.start({ kind: 'copy', remote: 'firecrest://c/z', destination: 'firecrest://c/z2' });
    assert.ok(next.id > Math.max(...list.map((r) => r.id)), 'ids continue after the stored ones');
    const cleared = await b.clear();
    assert.equal(cleared.length, 2);
    assert.deepEqual(b.list().map((r) => r.id), [next.id], 'the running one stays');
    assert.equal((store.get<unknown[]>('firecrest.transfers', [])).length, 1);
  });

  void it('cancels through the publisher and retries through its closure, replacing the old record', async () => {
    const events = new TransferEvents();
    let aborted = 0;
    const run = async (): Promise<void> => {
      const h = events.start({ kind: 'compress', remote: 'firecrest://c/dir', destination: 'firecrest://c/dir.tar.gz', cancel: () => aborted++, retry: run });
      h.end(new Error('boom'));
    };
    await run();
    const first = events.list()[0];
    assert.equal(first.state, 'failed');
    assert.equal(first.error, 'boom');
    assert.deepEqual(events.actions(first), { cancel: false, retry: true, resume: false });
    assert.equal(events.cancel(first.id), false, 'a finished transfer cannot be cancelled');
    await events.retry(first.id);
    assert.equal(events.list().length, 1, 'the retried record was replaced');
    assert.notEqual(events.list()[0].id, first.id);
    const running = events.start({ kind: 'move', remote: 'firecrest://c/a', destination: 'firecrest://c/b', cancel: () => aborted++ });
    assert.equal(events.actions(events.get(running.id)!).cancel, true);
    assert.equal(events.cancel(running.id), true);
    assert.equal(aborted, 1);
  });

  void it('retries and resumes records of an earlier session through the runner of their kind', async () => {
    const store = memento();
    const a = new TransferEvents({ store });
    a.start({ kind: 'upload', remote: 'firecrest://c/f', local: '/tmp/f' }).end(new Error('network'));
    // Closing the window writes what is pending.
    a.dispose();
    const b = new TransferEvents({ store });
    const old = b.list()[0];
    assert.deepEqual(b.actions(old), { cancel: false, retry: false, resume: false }, 'nothing without a runner');
    const calls: [string, boolean][] = [];
    b.setRunner('upload', {
      canRetry: (r) => !!r.local,
      canResume: () => true,
      rerun: async (r, resume) => {
        calls.push([r.local!, resume]);
        b.start({ kind: 'upload', remote: r.remote, local: r.local }).end();
      },
    });
    assert.deepEqual(b.actions(old), { cancel: false, retry: true, resume: true });
    await b.retry(old.id, true);
    assert.deepEqual(calls, [['/tmp/f', true]]);
    assert.equal(b.list().length, 1);
    assert.equal(b.list()[0].state, 'done');
    await assert.rejects(b.retry(12345), /no transfer/);
  });
});
