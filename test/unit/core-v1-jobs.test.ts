/** v1 job listings read like v2's: recently finished jobs merged in (sacct reused while the queue holds still), and facts sacct lacks kept. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from '../../src/core/model';
import { JobFacts, knownPath } from '../../src/core/v1/jobFacts';
import { RecentJobs } from '../../src/core/v1/recentJobs';

const job = (id: string, state: string, isFinal: boolean, extra: Partial<Job> = {}): Job => ({ id, name: `j${id}`, state, stateClass: isFinal ? 'completed' : 'running', isFinal, ...extra });

void describe('v1 recent jobs', () => {
  void it('merges the finished jobs it saw queued or submitted, asking sacct by id only when that set changes or 30 s passed', async () => {
    let now = 1_000_000_000_000;
    const asked: string[][] = [];
    const recent = new RecentJobs(async (_m, ids) => {
      asked.push(ids);
      return ids.map((id) => job(id, 'COMPLETED', true, { endTime: id === '9' ? now / 1000 - 2 * 86400 : now / 1000 - 60 }));
    }, () => now);
    assert.deepEqual((await recent.merge('s', [job('1', 'RUNNING', false), job('2', 'RUNNING', false)], {})).map((j) => j.id), ['1', '2']);
    assert.equal(asked.length, 0, 'nothing left the queue: no sacct');
    recent.noteSubmitted('s', '3');
    recent.noteSubmitted('s', '9');
    assert.deepEqual((await recent.merge('s', [job('1', 'RUNNING', false)], {})).map((j) => j.id), ['1', '2', '3']);
    assert.deepEqual(asked[0], ['2', '3', '9'], 'by id');
    await recent.merge('s', [job('1', 'RUNNING', false)], {});
    assert.deepEqual(asked[1], ['2', '3'], 'job 9 ended before the window and is no longer asked for');
    await recent.merge('s', [job('1', 'RUNNING', false)], {});
    assert.equal(asked.length, 2, 'same departed set: reused');
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), ['1', '2', '3']);
    now += 31_000;
    await recent.merge('s', [], {});
    assert.equal(asked.length, 4, 'stale after 30 s');
    assert.deepEqual((await recent.merge('s', [job('5', 'RUNNING', false)], { allUsers: true })).map((j) => j.id), ['5', '1', '2', '3'], "another user's queued job is not tracked");
  });

  void it('asks again while a job that left the queue has no final record yet, and gives up on it after 2 minutes', async () => {
    let now = 1_000_000_000_000;
    let recorded = false;
    const asked: string[][] = [];
    const recent = new RecentJobs(async (_m, ids) => {
      asked.push(ids);
      return ids.filter((id) => id === '1' && recorded).map((id) => job(id, 'COMPLETED', true, { endTime: now / 1000 }));
    }, () => now);
    recent.noteSubmitted('s', '1');
    recent.noteSubmitted('s', '2');
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), []);
    recorded = true;
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), ['1'], 'asked again at once: the record arrived');
    now += 121_000;
    await recent.merge('s', [], {});
    assert.deepEqual(asked.at(-1), ['1', '2']);
    await recent.merge('s', [], {});
    assert.deepEqual(asked.at(-1), ['1'], 'job 2 never got a record: no longer asked for');
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
