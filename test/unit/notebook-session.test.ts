/**
 * A notebook session's state when a cell ends: the driver writes the cell's `done` and then
 * `status idle`, and a read of its log can end between the two lines. The cell's caller then sees
 * the cell end, and the kernel must already read idle: with nothing left to run the session stops
 * reading the log, so the idle line would wait for the next heartbeat (a minute) and the status
 * bar said "busy" until then. The cluster's side is an in-memory log: the moment between two
 * writes of the driver cannot be produced on demand against a real server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FirecrestApi } from '../../src/core/api';
import { NotebookSession, type KernelState } from '../../src/core/notebook/session';

/**
 * The driver's log and the job, as the session reads them through the API. Cells run one at a
 * time, in the order asked; a cell named `held-…` runs until the test releases it. The driver's
 * `status idle` after a cell is left out: the read that ends between the two lines, for good.
 */
function cluster() {
  let log = '';
  let seq = 0;
  const emit = (m: Record<string, unknown>) => (log += `${JSON.stringify({ ...m, seq: ++seq })}\n`);
  const queue: Record<string, unknown>[] = [];
  const released = new Set<string>();
  /** Settles when the cell has been asked for (its request uploaded). */
  const asked = new Map<string, () => void>();
  const whenAsked = (cell: string) => new Promise<void>((r) => asked.set(cell, r));
  let running: Record<string, unknown> | undefined;
  /** Ends the running cell when it may end; starts the next one when `start` (not in the same breath as an end). */
  const pump = (start: boolean) => {
    if (running && (!String(running.cell).startsWith('held-') || released.has(String(running.cell)))) {
      emit({ type: 'done', cell: running.cell, status: 'ok', count: running.count });
      running = undefined;
      return;
    }
    if (!running && start && queue.length) {
      running = queue.shift()!;
      emit({ type: 'status', state: 'busy', cell: running.cell });
      emit({ type: 'stream', cell: running.cell, name: 'stdout', text: 'hi\n' });
      pump(false);
    }
  };
  const job = { id: '7', state: 'RUNNING', stateClass: 'running', isFinal: false };
  const api = {
    job: async () => job,
    view: async (_s: string, _p: string, o?: { offset?: number; size?: number }) => {
      const text = log.slice(o?.offset ?? 0, (o?.offset ?? 0) + (o?.size ?? log.length));
      // The next cell starts after this read: a read can end just after a cell's end.
      pump(true);
      return text;
    },
    uploadSmall: async (_s: string, _d: string, _n: string, data: Uint8Array) => {
      const req = JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
      if (req.type === 'execute') queue.push(req);
      pump(true);
      asked.get(String(req.cell))?.();
    },
    remove: async () => undefined,
  } as unknown as FirecrestApi;
  emit({ type: 'status', state: 'idle', host: 'nid001', python: '3.12.1' });
  return { api, whenAsked, release: (cell: string) => (released.add(cell), pump(false)) };
}

void describe('notebook session: the state as a cell ends', () => {
  void it('is idle when the last cell asked for has ended, before the driver says so', async () => {
    const c = cluster();
    const states: KernelState[] = [];
    const k = NotebookSession.attach(c.api, { system: 'c', jobId: '7', dir: '/scratch/u/nb' }, { fastMs: 5, maxFastMs: 20, idleCheckMs: 60_000, onState: (s) => states.push(s) });
    try {
      const out: string[] = [];
      const r = await k.execute('a', 'print("hi")', (m) => m.type === 'stream' && out.push(m.text));
      assert.deepEqual(r, { status: 'ok', count: 1 });
      assert.deepEqual(out, ['hi\n']);
      assert.equal(k.state.state, 'idle', `states: ${states.map((s) => s.state).join(' ')}`);
      assert.deepEqual({ ...k.state, job: undefined }, { state: 'idle', host: 'nid001', python: '3.12.1', job: undefined }, 'the host and Python kept');
    } finally {
      await k.detach();
    }
  });

  void it('stays busy while another cell asked for is still to run', async () => {
    const c = cluster();
    const k = NotebookSession.attach(c.api, { system: 'c', jobId: '7', dir: '/scratch/u/nb' }, { fastMs: 5, maxFastMs: 20, idleCheckMs: 60_000 });
    try {
      // Two cells asked for, each running until released: when the first ends, the second is the
      // kernel's work.
      let running!: () => void;
      const firstRuns = new Promise<void>((r) => (running = r));
      const secondAsked = c.whenAsked('held-two');
      const first = k.execute('held-one', '1', () => running());
      const second = k.execute('held-two', '2', () => undefined);
      await Promise.all([firstRuns, secondAsked]);
      c.release('held-one');
      await first;
      assert.equal(k.state.state, 'busy');
      c.release('held-two');
      await second;
      assert.equal(k.state.state, 'idle');
    } finally {
      await k.detach();
    }
  });
});
