/**
 * The one-pass job listing check (src/core/v2/jobEntries.ts) accepts and rejects exactly what the
 * schema `JobsW` does and translates like `toJob` after it; state facts are the same however often
 * a state is read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedResponseError } from '../../src/core/errors';
import type { TransportResponse } from '../../src/core/http/transport';
import { classifyState, isFinalState } from '../../src/core/jobState';
import { fastJobs, parseJobs } from '../../src/core/v2/jobEntries';
import { toJob } from '../../src/core/v2/translate';
import { JobsW } from '../../src/core/v2/wire';

const res = (body: unknown): TransportResponse => ({ requestId: 'r', status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(body)) });
const job = {
  jobId: '812',
  name: 'train',
  status: { state: 'RUNNING', stateReason: 'None', exitCode: null, interruptSignal: null },
  tasks: [{ id: '812.batch' }],
  time: { elapsed: 12, start: 1_790_000_000, end: null, suspended: 0, limit: 3600 },
  account: 'proj',
  allocationNodes: 1,
  cluster: 'c',
  group: 'g',
  nodes: 'nid001',
  partition: 'debug',
  killRequestUser: null,
  user: 'alice',
  workingDirectory: '/home/alice',
  priority: 4_294_901_759,
};
const route = 'GET /compute/{system}/jobs';

void describe('v2 job listing: the one-pass check', () => {
  void it('agrees with JobsW on every field the extension relies on', () => {
    const st = job.status;
    const cases: unknown[] = [
      { jobs: [job] },
      { jobs: [] },
      { jobs: null },
      {},
      { jobs: [{ ...job, jobId: 812 }] },
      { jobs: [{ ...job, jobId: '812_3' }, { ...job, jobId: '812_[4-9%2]', status: { ...st, state: 'PENDING' } }] },
      { jobs: [{ ...job, name: null, time: null, account: undefined, nodes: '', priority: null }] },
      { jobs: [{ ...job, status: { state: ['CANCELLED', 'by', '1001'] } }] },
      { jobs: [{ ...job, status: { ...st, state: ['RUNNING', 3] } }] },
      { jobs: [{ ...job, status: { ...st, state: null } }] },
      { jobs: [{ ...job, status: { ...st, exitCode: '0' } }] },
      { jobs: [{ ...job, status: { ...st, stateReason: 7 } }] },
      { jobs: [{ ...job, status: null }] },
      { jobs: [{ ...job, status: [] }] },
      { jobs: [{ ...job, status: undefined }] },
      { jobs: [{ ...job, jobId: null }] },
      { jobs: [{ ...job, jobId: true }] },
      { jobs: [{ ...job, name: 3 }] },
      { jobs: [{ ...job, time: { ...job.time, start: '1790000000' } }] },
      { jobs: [{ ...job, time: [] }] },
      { jobs: [{ ...job, time: 5 }] },
      { jobs: [{ ...job, partition: 1 }] },
      { jobs: [{ ...job, allocationNodes: '1' }] },
      { jobs: [{ ...job, workingDirectory: {} }] },
      { jobs: [{ ...job, priority: 'high' }] },
      { jobs: [job, null] },
      { jobs: [job, 'x'] },
      { jobs: [job, [job]] },
      { jobs: {} },
      { jobs: 'none' },
      [],
      null,
      'jobs',
    ];
    for (const c of cases) {
      const fast = fastJobs(c);
      const ok = JobsW.safeParse(c).success;
      // The fast path may leave a case to zod, but never accepts what zod refuses.
      if (fast) assert.ok(ok, `fast path accepted ${JSON.stringify(c)}`);
      if (ok) assert.deepEqual(parseJobs(res(c), route), (JobsW.parse(c).jobs ?? []).map(toJob), JSON.stringify(c));
      else assert.throws(() => parseJobs(res(c), route), (e: unknown) => e instanceof MalformedResponseError && e.route === route, JSON.stringify(c));
    }
  });

  void it('takes the one pass for a server of today, and reads 10,000 jobs as the schema path does', () => {
    const states = ['RUNNING', 'PENDING', 'COMPLETED', 'FAILED', 'CANCELLED by 1001', 'TIMEOUT', 'F', 'R'];
    const jobs = Array.from({ length: 10_000 }, (_, i) => ({
      ...job,
      jobId: i % 50 === 0 ? `9000_${i}` : String(100_000 + i),
      status: { state: states[i % states.length], stateReason: i % 3 ? 'Priority' : 'None', exitCode: i % 7, interruptSignal: null },
      time: i % 5 ? { ...job.time, start: i % 2 ? 1_790_000_000 + i : 0 } : null,
    }));
    assert.ok(fastJobs({ jobs }), 'the one pass refused a listing the server of today sends');
    assert.deepEqual(parseJobs(res({ jobs }), route), JobsW.parse({ jobs }).jobs!.map(toJob));
  });

  void it('gives a state the same facts however often it is read, and PBS F by its exit code', () => {
    for (let round = 0; round < 3; round++) {
      assert.equal(classifyState('CANCELLED by 1001'), 'cancelled');
      assert.equal(isFinalState('CANCELLED by 1001'), true);
      assert.equal(classifyState('pending'), 'pending');
      assert.equal(isFinalState('RUNNING,COMPLETING'), false);
      assert.equal(classifyState('F', 0), 'completed');
      assert.equal(classifyState('F', 2), 'failed');
      assert.equal(isFinalState(''), false);
      assert.equal(classifyState('constructor'), 'other');
    }
    // Far more distinct states than it remembers: each still read right.
    for (let i = 0; i < 2_000; i++) assert.equal(classifyState(`NODE_FAIL_${i}`), 'failed');
  });
});
