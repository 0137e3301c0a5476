/** v1 job listings read like v2's: recently finished jobs merged in (sacct reused while the queue holds still), and facts sacct lacks kept. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from '../../src/core/model';
import { JobFacts, knownPath } from '../../src/core/v1/jobFacts';
import { RecentJobs } from '../../src/core/v1/recentJobs';

const job = (id: string, state: string, isFinal: boolean, extra: Partial<Job> = {}): Job => ({ id, name: `j${id}`, state, stateClass: isFinal ? 'completed' : 'running', isFinal, ...extra });

void describe('v1 recent jobs', () => {
  void it('merges finished jobs after the queue, asks sacct again only when the queue changed or 30 s passed', async () => {
    let now = 1_000_000_000;
    const asked: number[] = [];
    const recent = new RecentJobs(async (_m, start) => {
      asked.push(start);
      return [job('1', 'RUNNING', false), job('2', 'COMPLETED', true), job('3', 'FAILED', true)];
    }, () => now);
    const q1 = [job('1', 'RUNNING', false)];
    assert.deepEqual((await recent.merge('s', q1, {})).map((j) => j.id), ['1', '2', '3']);
    assert.equal(asked[0], now / 1000 - 86400, 'default look-back 24 h');
    await recent.merge('s', q1, {});
    assert.equal(asked.length, 1, 'same queue: sacct reused');
    await recent.merge('s', [], {});
    assert.equal(asked.length, 2, 'a job left the queue: asked again');
    now += 31_000;
    await recent.merge('s', [], {});
    assert.equal(asked.length, 3, 'stale after 30 s');
    await recent.merge('s', [], { timeWindow: '1h' });
    assert.equal(asked[3], Math.floor(now / 1000) - 3600);
  });

  void it('keeps the working directory and output paths a job had at submission or in the queue', () => {
    const facts = new JobFacts();
    facts.remember('s', '7', { workingDirectory: '/home/a/run', stdoutPath: knownPath('stdout-file-not-found') });
    const queued = facts.complete('s', job('7', 'RUNNING', false, { stdoutPath: '/home/a/run/o.txt' }));
    assert.deepEqual([queued.workingDirectory, queued.stdoutPath], ['/home/a/run', '/home/a/run/o.txt']);
    const done = facts.complete('s', job('7', 'COMPLETED', true));
    assert.deepEqual([done.workingDirectory, done.stdoutPath, done.stderrPath], ['/home/a/run', '/home/a/run/o.txt', undefined]);
    assert.equal(facts.complete('other', job('7', 'COMPLETED', true)).workingDirectory, undefined, 'per system');
  });
});
