/** v1 task polling against a scripted task service: progress, `until`, time-out, abort, failures. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CancelledError, ServerError, TimeoutError } from '../../src/core/errors';
import { Tasks } from '../../src/core/v1/tasks';
import type { V1Http } from '../../src/core/v1/v1Http';

/** A task service whose answers are `statuses` in turn (the last one repeats). */
function scripted(statuses: [number, unknown][]): { tasks: Tasks; polls: () => number } {
  let n = 0;
  const fake = {
    json: () => {
      const [status, data] = statuses[Math.min(n++, statuses.length - 1)];
      return Promise.resolve({ task: { status, description: `d${status}`, data } });
    },
  } as unknown as V1Http;
  return { tasks: new Tasks(fake), polls: () => n };
}

void describe('v1 task polling', () => {
  void it('reports each new status once and stops at a final one', async () => {
    const { tasks } = scripted([[100, 'Queued'], [100, 'Queued'], [200, { jobid: '1' }]]);
    const phases: string[] = [];
    const t = await tasks.wait('a', { onProgress: (p) => phases.push(p.phase) });
    assert.deepEqual(phases, ['100', '200']);
    assert.deepEqual(t.data, { jobid: '1' });
  });

  void it('an upload waits for 111 (until), then for 114', async () => {
    const { tasks } = scripted([[110, {}], [111, { msg: {} }], [112, {}], [114, {}]]);
    assert.equal((await tasks.wait('u', { until: (s) => s >= 111 })).status, 111);
    assert.equal((await tasks.wait('u', { until: (s) => s === 114 })).status, 114);
  });

  void it('115, 118 and 400 reject with the task text', async () => {
    for (const [status, data] of [[115, { msg: 'gone' }], [118, { error: 'staging failed' }], [400, 'sbatch: error: bad']] as [number, unknown][]) {
      await assert.rejects(scripted([[status, data]]).tasks.wait('x'), ServerError);
    }
  });

  void it('a task that never ends is TimeoutError; an abort is CancelledError', async () => {
    await assert.rejects(scripted([[100, 'Queued']]).tasks.wait('q', { overallTimeoutMs: 500 }), TimeoutError);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await assert.rejects(scripted([[100, 'Queued']]).tasks.wait('q', { signal: ac.signal }), CancelledError);
  });
});
