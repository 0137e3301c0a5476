/** Waiting for a v2 job while the server is briefly unreachable (a restart) or gone for good. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError, UnavailableError } from '../../src/core/errors';
import type { Job } from '../../src/core/model';
import type { ComputeRoutes } from '../../src/core/v2/compute';
import type { OpsRoutes } from '../../src/core/v2/ops';
import { JobWaiter } from '../../src/core/v2/wait';

/** A compute router whose `job` answers from a script of outcomes (the last one repeats). */
function scripted(outcomes: (Error | Partial<Job>)[]): { compute: ComputeRoutes; calls: () => number } {
  let n = 0;
  const compute = {
    job: () => {
      const o = outcomes[Math.min(n++, outcomes.length - 1)];
      return o instanceof Error ? Promise.reject(o) : Promise.resolve(o as Job);
    },
    cancel: () => Promise.resolve(),
  } as unknown as ComputeRoutes;
  return { compute, calls: () => n };
}

void describe('JobWaiter: polls that do not reach the server', () => {
  void it('rides through a short outage and returns the finished job', async () => {
    const down = new UnavailableError('connect ECONNREFUSED 127.0.0.1:1');
    const { compute, calls } = scripted([{ state: 'RUNNING', isFinal: false }, down, down, { state: 'COMPLETED', isFinal: true }]);
    const phases: string[] = [];
    const job = await new JobWaiter(compute, {} as OpsRoutes).waitForJob('c', '1', { onProgress: (p) => phases.push(p.phase) });
    assert.equal(job.state, 'COMPLETED');
    assert.equal(calls(), 4);
    assert.deepEqual(phases, ['RUNNING', 'UNREACHABLE', 'UNREACHABLE', 'COMPLETED']);
  });

  void it('gives up with the typed error once the server stays unreachable past the tolerance', async () => {
    let clock = 0;
    const down = new UnavailableError('connect ECONNREFUSED 127.0.0.1:1');
    const { compute } = scripted([down]);
    const waiter = new JobWaiter(compute, {} as OpsRoutes, () => (clock += 400));
    await assert.rejects(waiter.waitForJob('c', '1', { unreachableToleranceMs: 1000 }), (e: unknown) => e === down);
  });

  void it('still fails at once on an error that is not about reaching the server', async () => {
    const gone = new NotFoundError('Job 1 not found');
    let clock = 0;
    const { compute, calls } = scripted([gone]);
    await assert.rejects(new JobWaiter(compute, {} as OpsRoutes, () => (clock += 30_000)).waitForJob('c', '1'), (e: unknown) => e === gone);
    assert.equal(calls(), 1);
  });
});
