import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPattern } from '../../src/core/outputPaths';
import { countIndexes } from '../../src/core/arraySpecs';
import { arrayCounts, arrayInfo, describeCounts, foldArrayTwins, groupArrays, isArrayParent, pickJob } from '../../src/core/jobArrays';
import { toJob } from '../../src/core/v2/translate';
import type { JobWire } from '../../src/core/v2/wire';

/** A v2 row as the servers send it. */
function row(jobId: string, state: string, start: number | null, end: number | null = null): ReturnType<typeof toJob> {
  const wire = {
    jobId, name: 'sweep', status: { state, stateReason: state === 'PENDING' ? 'JobArrayTaskLimit' : 'None', exitCode: state === 'FAILED' ? 1 : 0, interruptSignal: 0 },
    tasks: null, time: { elapsed: 1, start, end, suspended: 0, limit: 600 }, account: 'proj', allocationNodes: 1, cluster: 'c', group: 'users',
    nodes: start ? 'nid1' : '', partition: 'debug', killRequestUser: null, user: 'alice', workingDirectory: '/home/alice', priority: 1,
  } as unknown as JobWire;
  return toJob(wire);
}

void describe('job arrays', () => {
  void it('reads array ids and counts their indexes; refuses what no Slurm writes', () => {
    assert.deepEqual(arrayInfo('12_3'), { jobId: '12', taskId: 3, count: 1 });
    assert.deepEqual(arrayInfo('12_[4-99%10]'), { jobId: '12', pending: '4-99%10', count: 96, throttle: 10 });
    assert.equal(countIndexes('0-20:5,30'), 6);
    assert.equal(arrayInfo('12'), undefined);
    assert.equal(arrayInfo('12_[a]'), undefined);
    assert.equal(arrayInfo('12_[0-99999999]'), undefined, 'more indexes than any Slurm allows');
    assert.equal(countIndexes('9-3'), undefined);
  });

  void it('folds the v2 twins onto their tasks: same start in index order, the array id last; the pending twin dropped', () => {
    // Tasks 0 and 1 started together: 0 got 13, 1 (the last to start) kept the array's id 12.
    const rows = [row('12_0', 'RUNNING', 100), row('13', 'RUNNING', 100), row('12_1', 'RUNNING', 100), row('12', 'RUNNING', 100),
      row('12_[2-5%2]', 'PENDING', null), row('14_[0-1]', 'PENDING', null), row('14', 'PENDING', null), row('11', 'RUNNING', 100)];
    const folded = foldArrayTwins(rows);
    assert.deepEqual(folded.map((j) => [j.id, j.ownId]), [['12_0', '13'], ['12_1', '12'], ['12_[2-5%2]', undefined], ['14_[0-1]', undefined], ['11', undefined]], 'a job older than the array is not one of its tasks');
  });

  void it('folds 20,000 tasks among 20,000 look-alike rows in linear time, pairing none of the look-alikes (security review 3, finding 9)', () => {
    // Same name, user, partition and start, but ids below the array's: no task's twin. This took
    // 51 s of a blocked extension host when the matching was quadratic.
    const rows = [];
    for (let i = 0; i < 20_000; i++) rows.push(row(`900000_${i}`, 'RUNNING', 100), row(String(100_000 + i), 'RUNNING', 100));
    rows.push(row('900001', 'RUNNING', 100), row('900000', 'RUNNING', 100));
    const t0 = performance.now();
    const folded = foldArrayTwins(rows);
    const ms = performance.now() - t0;
    assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
    assert.equal(folded.length, 40_000, 'the look-alikes stay, the two real twins are folded');
    assert.equal(folded.find((j) => j.id === '900000_0')?.ownId, '900001');
    assert.equal(folded.find((j) => j.id === '900000_1')?.ownId, '900000', 'the array\'s own id goes to the last task to start');
    assert.equal(folded.filter((j) => j.ownId !== undefined).length, 2);
  });

  void it('sums up an array of 150,000 listed tasks without a RangeError', () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => row(`7_${i}`, 'COMPLETED', 100 + (i % 50), 200 + (i % 70)));
    const { jobs } = groupArrays(rows);
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].array?.count, 150_000);
    assert.equal(jobs[0].startTime, 100);
    assert.equal(jobs[0].endTime, 269);
  });

  void it('pairs a twin whose task ended in the database only loosely, and takes the further state', () => {
    const rows = [row('12_0', 'RUNNING', 100), row('12_1', 'COMPLETED', 100, 150), row('13', 'COMPLETED', 100, 160), row('14', 'COMPLETED', 100, 150)];
    const folded = foldArrayTwins(rows);
    assert.equal(folded.length, 2);
    assert.equal(folded[0].ownId, '13');
    assert.equal(folded[0].state, 'COMPLETED', 'the live twin is further along');
    assert.equal(folded[1].ownId, '14', 'the same end pairs first');
  });

  void it('counts and sums an array up; groups a listing with one parent per array', () => {
    const tasks = [row('12_0', 'COMPLETED', 100, 110), row('12_1', 'FAILED', 100, 120), row('12_2', 'RUNNING', 100), row('12_[3-9]', 'PENDING', null)];
    const c = arrayCounts(tasks);
    assert.deepEqual(c, { running: 1, pending: 7, done: 2, failed: 1, total: 10 });
    assert.equal(describeCounts(c), '1 running · 7 pending · 2 done (1 failed)');
    // The `%N` throttle of the waiting tasks: how many run at once.
    assert.equal(describeCounts(arrayCounts([row('13_0', 'RUNNING', 100), row('13_1', 'RUNNING', 100), row('13_[2-9%2]', 'PENDING', null)])), '2 running · 8 pending (2 at a time)');
    // (Listed out of index order, as servers do: still one parent.)
    const { jobs, arrays } = groupArrays([row('7', 'RUNNING', 90), tasks[2], tasks[0], tasks[3], tasks[1]]);
    assert.deepEqual(jobs.map((j) => j.id), ['7', '12']);
    assert.ok(isArrayParent(jobs[1]));
    assert.equal(jobs[1].stateClass, 'running');
    assert.equal(jobs[1].array?.count, 10);
    assert.deepEqual(arrays.get('12')!.map((j) => j.id), ['12_0', '12_1', '12_2', '12_[3-9]']);
    const ended = pickJob('12', [row('12_0', 'COMPLETED', 100, 110), row('12_1', 'CANCELLED by 1001', 100, 130), row('12_2', 'FAILED', 100, 120)])!;
    assert.equal(ended.state, 'FAILED');
    assert.ok(ended.isFinal);
    assert.equal(ended.endTime, 130);
    assert.equal(pickJob('13', [row('12_0', 'RUNNING', 100), row('13', 'RUNNING', 100)])?.id, '12_0', 'a task by its own id');
  });

  void it('counts a task once when one read shows it waiting and a later one started (v1: the queue, then accounting)', () => {
    // The queue: task 0 running, 1 and 2 waiting; accounting a moment later: 1 runs too, 2 waits on its own row.
    const rows = [row('12_0', 'RUNNING', 100), row('12_[1-2]', 'PENDING', null), row('12_1', 'RUNNING', 101), row('12_2', 'PENDING', null)];
    const whole = pickJob('12', rows)!;
    assert.equal(whole.array?.count, 3);
    assert.equal(whole.state, 'RUNNING');
    // A spec with a step and a throttle: only the indexes it names are taken off; none left, no row.
    assert.equal(pickJob('14', [row('14_[0-10:2%3]', 'PENDING', null), row('14_4', 'RUNNING', 100), row('14_5', 'RUNNING', 100)])!.array?.count, 7);
    assert.equal(pickJob('15', [row('15_[0-1]', 'PENDING', null), row('15_0', 'RUNNING', 100), row('15_1', 'COMPLETED', 100, 110)])!.array?.count, 2);
    assert.equal(pickJob('16', [row('16_[0-1]', 'PENDING', null), row('16_3', 'RUNNING', 100)])!.array?.count, 3, 'an index the spec does not name is not taken off');
  });
});

void describe('output paths of array tasks', () => {
  void it('expands %A, %a, %j (the own id when known), %x, %u and %N per task', () => {
    const task = { ...row('12_3', 'RUNNING', 100), ownId: '15' };
    assert.equal(expandPattern('/w/%x-%A_%a-%j-%u-%N-%%.out', task), '/w/sweep-12_3-15-alice-nid1-%.out');
    assert.equal(expandPattern('%j.out', row('12_4', 'COMPLETED', 100, 120)), '%j.out', 'no own id known: left for the scheduler\'s own record');
    assert.equal(expandPattern('%A_%a.out', row('77', 'RUNNING', 100)), '77_4294967294.out');
  });
});
