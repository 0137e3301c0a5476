/** v1 job listings read like v2's: recently finished jobs merged in (sacct reused while the queue holds still), and facts sacct lacks kept. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from '../../src/core/model';
import { JobFacts, knownPath } from '../../src/core/v1/jobFacts';
import { CancelledError, ServerError } from '../../src/core/errors';
import { RecentJobs, type RecentJobsSource } from '../../src/core/v1/recentJobs';
import { withArray } from '../../src/core/jobArrays';

const job = (id: string, state: string, isFinal: boolean, extra: Partial<Job> = {}): Job => ({ id, name: `j${id}`, state, stateClass: isFinal ? 'completed' : 'running', isFinal, ...extra });

/** A source whose window holds no job (the by-id path alone). */
const byId = (finished: (ids: string[]) => Promise<Job[]>): RecentJobsSource => ({ finished: (_m, ids) => finished(ids), recent: async () => [] });

void describe('v1 recent jobs', () => {
  void it('asks for the window once per system (again when it grows), lists its finished jobs and keeps them fresh by id', async () => {
    let now = 1_000_000_000_000;
    const windows: { machine: string; startTime: number; count: number }[] = [];
    const asked: string[][] = [];
    const ended = now / 1000 - 3600;
    const recent = new RecentJobs({
      recent: async (machine, startTime, count) => {
        windows.push({ machine, startTime, count });
        const old = startTime < now / 1000 - 86400 ? [job('5', 'FAILED', true, { endTime: now / 1000 - 3 * 86400, exitCode: 2 })] : [];
        const twelve = windows.length > 1 ? job('12', 'COMPLETED', true, { endTime: ended }) : job('12', 'RUNNING', false);
        return [...old, job('10', 'COMPLETED', true, { endTime: ended, exitCode: 0 }), job('11', 'FAILED', true, { endTime: ended, exitCode: 3 }), twelve];
      },
      finished: async (_m, ids) => {
        asked.push(ids);
        return ids.map((id) => job(id, 'COMPLETED', true, { endTime: ended }));
      },
    }, () => now, Number.POSITIVE_INFINITY);
    const listed = await recent.merge('s', [job('12', 'RUNNING', false)], {});
    assert.deepEqual(listed.map((j) => [j.id, j.exitCode]), [['12', undefined], ['10', 0], ['11', 3]]);
    assert.deepEqual(windows, [{ machine: 's', startTime: now / 1000 - 86400, count: 100 }], 'the default window (24 h), its newest page');
    assert.equal(asked.length, 0, 'the window answered for the departed jobs: nothing by id');
    await recent.merge('s', [job('12', 'RUNNING', false)], {});
    await recent.merge('s', [], { timeWindow: '1h' });
    assert.equal(windows.length, 1, 'not asked again per listing, nor for a shorter window');
    assert.deepEqual(asked, [['10', '11', '12']], 'job 12 left the queue: by id');
    now += 31_000;
    await recent.merge('s', [], {});
    assert.deepEqual(asked.at(-1), ['10', '11', '12'], 'kept fresh by id');
    assert.deepEqual((await recent.merge('s', [], { timeWindow: '7d' })).map((j) => j.id), ['5', '10', '11', '12']);
    assert.equal(windows.length, 2, 'a longer window is asked for');
    assert.equal(windows[1].startTime, now / 1000 - 7 * 86400);
    await recent.merge('s', [], { timeWindow: '3d' });
    await recent.merge('t', [job('7', 'RUNNING', false)], { allUsers: true });
    assert.deepEqual(windows.map((w) => w.machine), ['s', 's', 't'], 'per system, all-users listings too (own jobs)');
    assert.deepEqual((await recent.merge('t', [job('7', 'RUNNING', false)], { allUsers: true })).map((j) => j.id), ['7', '10', '11', '12']);
    now += 31_000;
    assert.deepEqual((await recent.merge('t', [], { allUsers: true })).map((j) => j.id), ['10', '11', '12'], "another user's job was shown while queued, never tracked");
    assert.deepEqual(asked.at(-1), ['10', '11', '12']);
    assert.deepEqual((await recent.merge('s', [], { timeWindow: '1h' })).map((j) => j.id), [], 'all ended more than an hour ago');
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), ['10', '11', '12'], 'dropped by the shorter window, asked for again with the longer one');
    assert.equal(windows.filter((w) => w.machine === 's').length, 3);
  });

  void it('asks for the recent end of the window again after refreshMs: a job accounting had not yet recorded is listed then', async () => {
    let now = 1_000_000_000_000;
    const windows: number[] = [];
    // Accounting lags: the window answer leaves out job 21, which ended 2 s before it was asked.
    let lagging = true;
    const recent = new RecentJobs({
      recent: async (_m, startTime) => {
        windows.push(startTime);
        return [job('20', 'COMPLETED', true, { endTime: now / 1000 - 600 }), ...(lagging ? [] : [job('21', 'FAILED', true, { endTime: now / 1000 - 2, exitCode: 1 })])];
      },
      finished: async (_m, ids) => ids.map((id) => job(id, 'COMPLETED', true, { endTime: now / 1000 - 600 })),
    }, () => now, 30_000);
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), ['20']);
    lagging = false;
    now += 10_000;
    assert.deepEqual((await recent.merge('s', [], {})).map((j) => j.id), ['20'], 'not asked again before refreshMs');
    assert.equal(windows.length, 1);
    now += 21_000;
    const later = await recent.merge('s', [], {});
    assert.deepEqual(later.map((j) => [j.id, j.exitCode]), [['20', undefined], ['21', 1]], 'the lagging job is listed with the next look');
    assert.equal(windows.length, 2);
    assert.equal(windows[1], (now - 31_000) / 1000 - 120, 'from a little before the last look, not the whole window');
    await recent.merge('s', [], {});
    assert.equal(windows.length, 2, 'once per refresh interval');
  });

  void it('concurrent first listings share one window request; a failed one leaves the queue and is retried a minute later', async () => {
    let now = 1_000_000_000_000;
    let calls = 0;
    let fail = true;
    const recent = new RecentJobs({
      recent: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new ServerError('sacct: error: slurmdbd not reachable');
        return [job('1', 'COMPLETED', true, { endTime: now / 1000 })];
      },
      finished: async () => [],
    }, () => now);
    const both = await Promise.all([recent.merge('s', [job('2', 'RUNNING', false)], {}), recent.merge('s', [job('2', 'RUNNING', false)], {})]);
    assert.deepEqual(both.map((l) => l.map((j) => j.id)), [['2'], ['2']], 'the queue is still listed');
    assert.equal(calls, 1);
    fail = false;
    await recent.merge('s', [job('2', 'RUNNING', false)], {});
    assert.equal(calls, 1, 'not retried at every listing');
    now += 61_000;
    assert.deepEqual((await recent.merge('s', [job('2', 'RUNNING', false)], {})).map((j) => j.id), ['2', '1']);
    assert.equal(calls, 2);
    const ac = new AbortController();
    ac.abort();
    const cancelled = new RecentJobs({ recent: async () => { throw new CancelledError(); }, finished: async () => [] });
    await assert.rejects(cancelled.merge('s', [], { signal: ac.signal }), CancelledError);
  });

  void it('with onMore, answers with the queue at once and calls back once the window arrived; the next listing shows it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let windows = 0;
    const recent = new RecentJobs({
      recent: async () => {
        windows++;
        await gate;
        return [job('10', 'COMPLETED', true, { endTime: Date.now() / 1000 - 60, exitCode: 0 })];
      },
      finished: async (_m, ids) => ids.map((id) => job(id, 'COMPLETED', true)),
    });
    let more = 0;
    const early = { onMore: () => more++ };
    assert.deepEqual((await recent.merge('s', [job('12', 'RUNNING', false)], early)).map((j) => j.id), ['12'], 'the queue, without waiting');
    assert.deepEqual((await recent.merge('s', [job('12', 'RUNNING', false)], { onMore: () => more++ })).map((j) => j.id), ['12']);
    assert.equal(windows, 1, 'one window request for both listings');
    assert.equal(more, 0);
    release();
    await gate;
    await new Promise((r) => setImmediate(r));
    assert.equal(more, 2, 'each early listing is told');
    assert.deepEqual((await recent.merge('s', [job('12', 'RUNNING', false)], early)).map((j) => [j.id, j.exitCode]), [['12', undefined], ['10', 0]]);
    assert.deepEqual((await recent.merge('s', [job('12', 'RUNNING', false)], early)).map((j) => j.id), ['12', '10'], 'kept by the later listings');
    assert.equal(windows, 1);
  });

  void it('merges the finished jobs it saw queued or submitted, asking sacct by id only when that set changes or 30 s passed', async () => {
    let now = 1_000_000_000_000;
    const asked: string[][] = [];
    const recent = new RecentJobs(byId(async (ids) => {
      asked.push(ids);
      return ids.map((id) => job(id, 'COMPLETED', true, { endTime: id === '9' ? now / 1000 - 2 * 86400 : now / 1000 - 60 }));
    }), () => now);
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
    const recent = new RecentJobs(byId(async (ids) => {
      asked.push(ids);
      return ids.filter((id) => id === '1' && recorded).map((id) => job(id, 'COMPLETED', true, { endTime: now / 1000 }));
    }), () => now);
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

  void it('asks for an array by its id, once for all its tasks: a big array never pushes the user\'s other finished jobs out', async () => {
    const now = 1_000_000_000_000;
    const asked: string[][] = [];
    const task = (i: number, state = 'COMPLETED', isFinal = true): Job => job(`200_${i}`, state, isFinal, { ...withArray(`200_${i}`), endTime: now / 1000 - 60 });
    const recent = new RecentJobs(byId(async (ids) => {
      asked.push(ids);
      return ids.flatMap((id) => (id === '200' ? Array.from({ length: 150 }, (_, i) => task(i)) : [job(id, 'COMPLETED', true, { endTime: now / 1000 - 60 })]));
    }), () => now);
    // Job 5 of another session, seen queued; then an array of 150 tasks; then 90 jobs of other sessions.
    await recent.merge('s', [job('5', 'RUNNING', false)], {});
    await recent.merge('s', Array.from({ length: 150 }, (_, i) => task(i, 'RUNNING', false)), {});
    await recent.merge('s', Array.from({ length: 90 }, (_, i) => job(String(300 + i), 'RUNNING', false)), {});
    const listed = await recent.merge('s', [], {});
    const ids = asked.at(-1)!;
    assert.equal(ids.length, 92, 'job 5, the array, the 90 others');
    assert.ok(ids.includes('200') && !ids.some((id) => id.startsWith('200_')), 'the array by its id');
    assert.equal(listed.filter((j) => j.array?.jobId === '200').length, 150, 'every task of it listed');
    assert.ok(listed.some((j) => j.id === '5'), 'job 5 is still listed');

    // Submitted here: asked for before jobs of other sessions, however many newer ones there are.
    const mine = new RecentJobs(byId(async (ids) => { asked.push(ids); return ids.map((id) => job(id, 'COMPLETED', true, { endTime: now / 1000 - 60 })); }), () => now);
    mine.noteSubmitted('s', '7');
    await mine.merge('s', [job('7', 'RUNNING', false), ...Array.from({ length: 120 }, (_, i) => job(String(300 + i), 'RUNNING', false))], {});
    assert.deepEqual((await mine.merge('s', [], {})).map((j) => j.id).filter((id) => id === '7'), ['7']);
    assert.equal(asked.at(-1)!.length, 100);
    assert.equal(asked.at(-1)![0], '7');
  });

  void it('lists the ended tasks of an array still running, asking again when one more left the queue', async () => {
    const now = 1_000_000_000_000;
    const asked: string[][] = [];
    const running = new Set(['200_1']);
    const task = (i: number, state: string, isFinal: boolean): Job => job(`200_${i}`, state, isFinal, withArray(`200_${i}`));
    const recent = new RecentJobs(byId(async (ids) => {
      asked.push(ids);
      return [0, 1].map((i) => (running.has(`200_${i}`) ? task(i, 'RUNNING', false) : task(i, 'COMPLETED', true)));
    }), () => now);
    const waiting = job('200_[2-9]', 'PENDING', false, withArray('200_[2-9]'));
    await recent.merge('s', [task(0, 'RUNNING', false), task(1, 'RUNNING', false), waiting], {});
    assert.equal(asked.length, 0, 'nothing left the queue');
    const listed = await recent.merge('s', [task(1, 'RUNNING', false), waiting], {});
    assert.deepEqual(asked, [['200']]);
    assert.deepEqual(listed.map((j) => j.id), ['200_1', '200_[2-9]', '200_0'], 'the ended task with the queue, the running one once');
    await recent.merge('s', [task(1, 'RUNNING', false), waiting], {});
    assert.equal(asked.length, 1, 'nothing more left: the answer is reused');
    running.delete('200_1');
    assert.deepEqual((await recent.merge('s', [waiting], {})).map((j) => j.id), ['200_[2-9]', '200_0', '200_1']);
    assert.equal(asked.length, 2, 'one more task left: asked again');
  });

  void it('asks for an array submitted here whose tasks ended before any listing saw them, once the queue holds fewer of them', async () => {
    const asked: string[][] = [];
    const task = (i: number, state: string, isFinal: boolean): Job => job(`300_${i}`, state, isFinal, withArray(`300_${i}`));
    let ended = 0;
    const recent = new RecentJobs(byId(async (ids) => {
      asked.push(ids);
      if (ended === 0) return [job('300_[0-5]', 'PENDING', false, withArray('300_[0-5]'))];
      return [0, 1, 2, 3].map((i) => task(i, 'COMPLETED', true)).concat(task(4, 'RUNNING', false), task(5, 'RUNNING', false));
    }));
    recent.noteSubmitted('s', '300');
    await recent.merge('s', [job('300_[0-5]', 'PENDING', false, withArray('300_[0-5]'))], {});
    ended = 4;
    const running = [task(4, 'RUNNING', false), task(5, 'RUNNING', false)];
    const listed = await recent.merge('s', running, {});
    assert.deepEqual(listed.map((j) => j.id), ['300_4', '300_5', '300_0', '300_1', '300_2', '300_3']);
    const before = asked.length;
    await recent.merge('s', running, {});
    assert.equal(asked.length, before, 'the queue holds still: the answer is reused');
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

  void it('keeps the partition and account of a job that accounting has not recorded yet (sacct: allocation, no partition; real v1)', () => {
    const facts = new JobFacts();
    facts.remember('s', '7', { name: 'mine', partition: 'debug', account: 'proj' });
    const early = facts.complete('s', job('7', 'COMPLETED', true, { name: 'allocation', partition: undefined, account: undefined }));
    assert.deepEqual([early.name, early.partition, early.account], ['mine', 'debug', 'proj']);
    // What a later record says wins over what was remembered.
    const later = facts.complete('s', job('7', 'COMPLETED', true, { name: 'mine', partition: 'long', account: 'other' }));
    assert.deepEqual([later.partition, later.account], ['long', 'other']);
    assert.equal(facts.complete('s', job('7', 'COMPLETED', true, { partition: undefined })).partition, 'long', 'and is remembered in turn');
    assert.equal(facts.complete('t', job('7', 'COMPLETED', true, { partition: undefined })).partition, undefined, 'per system');
  });

  void it('keeps where a submitted job writes through an accounting answer of thousands of named jobs (CI: 6,000 jobs in the window)', () => {
    const facts = new JobFacts();
    facts.remember('s', '7', { workingDirectory: '/home/a/run', name: 'mine' });
    for (let i = 100; i < 20_100; i++) facts.complete('s', job(String(i), 'COMPLETED', true));
    const done = facts.complete('s', job('7', 'COMPLETED', true, { name: 'allocation' }));
    assert.equal(done.workingDirectory, '/home/a/run');
    assert.equal(done.name, 'allocation', 'the name is a fact among many: pushed out by 20,000 newer ones');
    assert.equal(facts.complete('s', job('20099', 'COMPLETED', true, { name: 'allocation' })).name, 'j20099', 'a recent name stays over the placeholder');
  });
});
