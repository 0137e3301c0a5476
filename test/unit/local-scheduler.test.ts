// The gateway's built-in scheduler, driven directly: real jobs run as real unix users (which needs
// root; the job tests skip otherwise), real files are written, real processes are killed.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expandPattern, parseDirectives, parseTimeLimit } from '../../gateway/src/scheduler/local-directives';
import { LocalScheduler } from '../../gateway/src/scheduler/local';
import { SchedulerError, type JobRecord, type JobSpec } from '../../gateway/src/scheduler/types';
import type { UnixUser } from '../../gateway/src/users';

const isRoot = process.getuid?.() === 0;
const skip = isRoot ? false : 'runs jobs as other unix users: needs root';

function ensureUser(name: string): void {
  try {
    execFileSync('getent', ['passwd', name], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['-m', '-U', '-s', '/bin/bash', name], { stdio: 'ignore' });
  }
}

function unixUser(name: string): UnixUser {
  const [, , uid, gid, , home] = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
  const gids = execFileSync('id', ['-G', name], { encoding: 'utf8' }).trim().split(' ').map(Number);
  const names = execFileSync('id', ['-Gn', name], { encoding: 'utf8' }).trim().split(' ');
  const groups = gids.map((g, i) => ({ name: names[i], gid: g }));
  return { name, uid: Number(uid), gid: Number(gid), group: groups.find((g) => g.gid === Number(gid))?.name ?? name, home, groups };
}

/** Two users: alice and bob when the machine has them, throwaway ones otherwise. */
function pickUsers(): [UnixUser, UnixUser] {
  const has = (n: string): boolean => { try { execFileSync('getent', ['passwd', n], { stdio: 'ignore' }); return true; } catch { return false; } };
  const names: [string, string] = has('alice') && has('bob') ? ['alice', 'bob'] : ['f7tlocal1', 'f7tlocal2'];
  names.forEach(ensureUser);
  return [unixUser(names[0]), unixUser(names[1])];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

void describe('local scheduler: sbatch parsing', () => {
  void test('time formats', () => {
    assert.equal(parseTimeLimit('10'), 600);
    assert.equal(parseTimeLimit('1:30'), 90);
    assert.equal(parseTimeLimit('01:02:03'), 3723);
    assert.equal(parseTimeLimit('2-3'), (2 * 24 + 3) * 3600);
    assert.equal(parseTimeLimit('1-00:30'), 86400 + 1800);
    assert.equal(parseTimeLimit('1-0:0:5'), 86405);
    assert.equal(parseTimeLimit('UNLIMITED'), null);
    assert.equal(parseTimeLimit('ten'), undefined);
    assert.equal(parseTimeLimit('1:2:3:4'), undefined);
  });

  void test('directives stop at the first command and accept long, short and quoted forms', () => {
    const d = parseDirectives([
      '#!/bin/bash', '', '# a comment', '#SBATCH --job-name="my job" # trailing comment', '#SBATCH -o out-%j.txt',
      '#SBATCH -e err.txt -t 5', '#SBATCH --chdir sub', '#SBATCH -pdebug', '#SBATCH --account=proj2 --nodes=1',
      'echo hi', '#SBATCH --partition=long',
    ].join('\n'));
    assert.deepEqual(d, { name: 'my job', output: 'out-%j.txt', error: 'err.txt', time: '5', chdir: 'sub', partition: 'debug', account: 'proj2' });
  });

  void test('output patterns', () => {
    const v = { jobId: '42', jobName: 'x', user: 'alice', node: 'n1' };
    assert.equal(expandPattern('slurm-%j.out', v), 'slurm-42.out');
    assert.equal(expandPattern('%x_%u_%A_%a_%N_%%_%5j_%q', v), 'x_alice_42_4294967294_n1_%_00042_%q');
  });
});

void describe('local scheduler: jobs', { skip }, () => {
  let alice: UnixUser;
  let bob: UnixUser;
  let stateDir: string;
  let sched: LocalScheduler;
  let work: string;
  const made: string[] = [];

  const spec = (script: string, extra: Partial<JobSpec> = {}): JobSpec => ({ script: `#!/bin/bash\n${script}\n`, workingDirectory: work, env: {}, ...extra });
  const get = async (id: string): Promise<JobRecord> => {
    const r = await sched.get(alice, id);
    assert.ok(r, `job ${id} exists`);
    return r;
  };
  const waitFor = async (id: string, pred: (r: JobRecord) => boolean, ms = 8000): Promise<JobRecord> => {
    const end = Date.now() + ms;
    for (;;) {
      const r = await get(id);
      if (pred(r)) return r;
      if (Date.now() > end) assert.fail(`job ${id} stuck in ${r.status.state} (${r.status.stateReason})`);
      await sleep(20);
    }
  };
  const done = (r: JobRecord): boolean => !['PENDING', 'RUNNING'].includes(r.status.state);

  before(async () => {
    [alice, bob] = pickUsers();
    stateDir = mkdtempSync(join(tmpdir(), 'f7t-local-test-'));
    work = mkdtempSync(join(alice.home, 'lsched-'));
    chownSync(work, alice.uid, alice.gid);
    made.push(work);
    sched = new LocalScheduler({ cluster: 'testcluster', stateDir });
    await sched.start();
  });

  after(async () => {
    await sched.stop();
    rmSync(stateDir, { recursive: true, force: true });
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  void test('concurrent submissions get distinct ids, arrays included (ids are taken before any await)', async () => {
    const ids = await Promise.all([
      sched.submit(alice, spec('true')),
      sched.submit(alice, spec('#SBATCH --array=0-2\ntrue')),
      sched.submit(alice, spec('true')),
      sched.submit(alice, spec('#SBATCH --array=5,7\ntrue')),
    ]);
    const records = (await Promise.all(ids.map((id) => sched.lookup(alice, id)))).flat();
    const own = records.map((r) => r.jobId);
    assert.equal(own.length, 7);
    assert.equal(new Set(own).size, 7, `distinct ids: ${own.join(' ')}`);
    for (const id of ids) await waitFor(id, done);
  });

  void test('an array: tasks by index with %A_%a outputs, a %N throttle with JobArrayTaskLimit, the last task holding the array id', async () => {
    const id = await sched.submit(alice, spec('#SBATCH --array=0-3%1\n#SBATCH -o arr-%A_%a.out\necho "$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT"; sleep 0.3'));
    const tasks = await sched.lookup(alice, id);
    assert.deepEqual(tasks.map((t) => t.arrayTaskId).sort(), ['0', '1', '2', '3']);
    assert.equal(tasks.find((t) => t.jobId === id)?.arrayTaskId, '3', 'the array id is the last task\'s');
    const waiting = await (async () => {
      for (const end = Date.now() + 5000; Date.now() < end; await sleep(20)) {
        const now = await sched.lookup(alice, id);
        if (now.some((t) => t.status.state === 'RUNNING')) return now;
      }
      return [];
    })();
    assert.equal(waiting.filter((t) => t.status.state === 'RUNNING').length, 1, 'one task at a time (%1)');
    assert.ok(waiting.some((t) => t.status.stateReason === 'JobArrayTaskLimit'));
    for (const t of tasks) await waitFor(t.jobId, done, 15_000);
    for (const task of [0, 3]) assert.equal(readFileSync(join(work, `arr-${id}_${task}.out`), 'utf8'), `${id} ${task} 4\n`);
    // A task by its array form.
    assert.equal((await sched.get(alice, `${id}_2`))?.arrayTaskId, '2');
  });

  void test('a job writes its output as the user, byte for byte, and completes', async () => {
    const t0 = Date.now();
    const id = await sched.submit(alice, spec('printf "h\\xc3\\xa9llo\\n"; printf "oops" >&2; id -un'));
    const r = await waitFor(id, done);
    assert.ok(Date.now() - t0 < 2000, 'a free slot starts the job at once');
    assert.equal(r.status.state, 'COMPLETED');
    assert.equal(r.status.exitCode, 0);
    assert.equal(r.user, alice.name);
    assert.equal(r.partition, 'debug');
    assert.equal(r.account, 'proj');
    assert.equal(r.cluster, 'testcluster');
    assert.equal(r.tasks?.[0].id, `${id}.batch`);
    assert.equal(r.time.limit, 3600);
    assert.equal(r.cpuTime, r.time.elapsed);
    assert.ok(r.submitTime! <= r.time.start! && r.time.start! <= r.time.end!);
    assert.equal(r.standardOutput, join(work, `slurm-${id}.out`));
    const out = join(work, `slurm-${id}.out`);
    assert.deepEqual(readFileSync(out), Buffer.from(`h\u00e9llo\noops${alice.name}\n`));
    assert.equal(statSync(out).uid, alice.uid);
    const meta = await sched.metadata(alice, id);
    assert.equal(meta?.script, '#!/bin/bash\nprintf "h\\xc3\\xa9llo\\n"; printf "oops" >&2; id -un\n');
  });

  void test('#SBATCH directives: job-name, output with %j, error, chdir', async () => {
    const sub = join(work, 'sub');
    mkdirSync(sub);
    chownSync(sub, alice.uid, alice.gid);
    const id = await sched.submit(alice, spec('#SBATCH -J named\n#SBATCH --output=o-%j-%x.log\n#SBATCH -e e.log\n#SBATCH --chdir=sub\npwd\necho err >&2'));
    const r = await waitFor(id, done);
    assert.equal(r.name, 'named');
    assert.equal(r.status.state, 'COMPLETED');
    assert.equal(r.workingDirectory, sub);
    assert.equal(readFileSync(join(sub, `o-${id}-named.log`), 'utf8'), `${sub}\n`);
    assert.equal(readFileSync(join(sub, 'e.log'), 'utf8'), 'err\n');
    // API fields win over the script, as sbatch's command line does.
    const id2 = await sched.submit(alice, spec('#SBATCH -J fromscript\n#SBATCH -o script.out\necho x', { name: 'fromapi', standardOutput: 'api.out' }));
    const r2 = await waitFor(id2, done);
    assert.equal(r2.name, 'fromapi');
    assert.equal(readFileSync(join(work, 'api.out'), 'utf8'), 'x\n');
    assert.equal(existsSync(join(work, 'script.out')), false);
  });

  void test('scriptPath: read with the user\'s rights, named after the file', async () => {
    const path = join(work, 'job.sh');
    writeFileSync(path, '#!/bin/bash\necho from file\n');
    chownSync(path, alice.uid, alice.gid);
    const id = await sched.submit(alice, { scriptPath: path, workingDirectory: work, env: {} });
    const r = await waitFor(id, done);
    assert.equal(r.name, 'job.sh');
    assert.equal(readFileSync(join(work, `slurm-${id}.out`), 'utf8'), 'from file\n');
    const secret = join(mkdtempSync(join(tmpdir(), 'f7t-rootonly-')), 'job.sh');
    made.push(dirname(secret));
    writeFileSync(secret, '#!/bin/bash\necho secret\n', { mode: 0o600 });
    await assert.rejects(sched.submit(alice, { scriptPath: secret, workingDirectory: work, env: {} }), /Unable to open file/);
  });

  void test('a time limit ends the job as TIMEOUT', async () => {
    // The script ignores SIGTERM: TIMEOUT shows at once, SIGKILL follows after the grace period.
    const id = await sched.submit(alice, spec('#SBATCH --time=0:01\ntrap "echo got TERM" TERM\nsleep 30 & wait; sleep 30 & wait'));
    const r = await waitFor(id, done, 6000);
    assert.ok(Date.now() - (r.time.start! * 1000) < 4000, 'TIMEOUT is reported before the processes are gone');
    assert.equal(r.status.state, 'TIMEOUT');
    assert.equal(r.status.stateReason, 'TimeLimit');
    assert.equal(r.time.limit, 1);
    // The node is busy until the processes are gone: SIGKILL after the grace period ends them.
    for (const end = Date.now() + 30_000; (await sched.nodes(alice))[0].state[0] !== 'IDLE'; await sleep(100)) {
      if (Date.now() > end) assert.fail('the job\'s processes were not killed after the grace period');
    }
    assert.match(readFileSync(join(work, `slurm-${id}.out`), 'utf8'), /got TERM/);
  });

  void test('a non-zero exit is FAILED with its exit code', async () => {
    const id = await sched.submit(alice, spec('exit 3'));
    const r = await waitFor(id, done);
    assert.equal(r.status.state, 'FAILED');
    assert.equal(r.status.exitCode, 3);
  });

  void test('PENDING -> RUNNING -> COMPLETED, queue reasons, cancel running and pending', async () => {
    const n = Math.max(1, cpus().length);
    const blockers: string[] = [];
    for (let i = 0; i < n; i++) blockers.push(await sched.submit(alice, spec('sleep 30')));
    for (const b of blockers) await waitFor(b, (r) => r.status.state === 'RUNNING');
    const first = await sched.submit(alice, spec('echo first'));
    const second = await sched.submit(alice, spec('echo second'));
    assert.equal((await get(first)).status.state, 'PENDING');
    assert.equal((await get(first)).status.stateReason, 'Resources');
    assert.equal((await get(second)).status.stateReason, 'Priority');
    assert.equal((await sched.nodes(alice))[0].state[0], 'ALLOCATED');

    await sched.cancel(alice, second);
    const c2 = await get(second);
    assert.equal(c2.status.state, `CANCELLED by ${alice.uid}`);
    assert.equal(c2.killRequestUser, alice.name);

    await sched.cancel(alice, blockers[0]);
    const c1 = await waitFor(blockers[0], () => true);
    assert.match(c1.status.state, /^CANCELLED by /);
    const f = await waitFor(first, (r) => r.status.state !== 'PENDING');
    assert.ok(['RUNNING', 'COMPLETED'].includes(f.status.state));
    assert.equal((await waitFor(first, done)).status.state, 'COMPLETED');
    assert.equal(readFileSync(join(work, `slurm-${first}.out`), 'utf8'), 'first\n');
    await sched.cancel(alice, first); // finished: a no-op, like scancel
    assert.equal((await get(first)).status.state, 'COMPLETED');
    for (const b of blockers.slice(1)) await sched.cancel(alice, b);
    for (const b of blockers) await waitFor(b, () => true);
  });

  void test('another user cannot cancel; unknown jobs are 404', async () => {
    const id = await sched.submit(alice, spec('sleep 30'));
    await assert.rejects(sched.cancel(bob, id), (e: unknown) =>
      e instanceof SchedulerError && e.status === 500 && e.message.includes(`Kill job error on job id ${id}: Access/permission denied`));
    await assert.rejects(sched.cancel(alice, '999999'), (e: unknown) => e instanceof SchedulerError && e.status === 404);
    assert.deepEqual((await sched.list(bob, {})).map((j) => j.jobId), []);
    assert.ok((await sched.list(bob, { allUsers: true })).some((j) => j.jobId === id));
    await sched.cancel(alice, id);
  });

  void test('attach runs a command in a running job', async () => {
    const id = await sched.submit(alice, spec('sleep 30'));
    await waitFor(id, (r) => r.status.state === 'RUNNING');
    const out = await sched.attach(alice, id, 'echo "$SLURM_JOB_ID $(pwd) $(id -un)"', 5000);
    assert.equal(out.stdout, `${id} ${work} ${alice.name}\n`);
    await sched.cancel(alice, id);
    await waitFor(id, done);
    await assert.rejects(sched.attach(alice, id, 'true', 5000), (e: unknown) => e instanceof SchedulerError && e.status === 400);
  });

  void test('afterok dependencies wait, run, or are never satisfied', async () => {
    const a = await sched.submit(alice, spec('sleep 0.5'));
    const b = await sched.submit(alice, spec('echo after', { afterOk: a }));
    assert.equal((await get(b)).status.stateReason, 'Dependency');
    assert.equal((await waitFor(b, done)).status.state, 'COMPLETED');
    assert.ok((await get(b)).time.start! >= (await get(a)).time.end!);
    const bad = await sched.submit(alice, spec('exit 1'));
    const c = await sched.submit(alice, spec(`#SBATCH --dependency=afterok:${bad}\necho never`));
    await waitFor(c, (r) => r.status.stateReason === 'DependencyNeverSatisfied');
    const rc = await waitFor(c, done);
    assert.equal(rc.status.state, 'CANCELLED');
    assert.equal(rc.status.stateReason, 'DependencyNeverSatisfied');
  });

  void test('afterany, afternotok, after, singleton and "any of" (?) dependencies, as sbatch takes them', async () => {
    const fails = await sched.submit(alice, spec('sleep 0.5; exit 2'));
    const any = await sched.submit(alice, spec(`#SBATCH --dependency=afterany:${fails}\necho any`));
    const notOk = await sched.submit(alice, spec(`#SBATCH --dependency=afternotok:${fails}\necho notok`));
    const ok = await sched.submit(alice, spec(`#SBATCH --dependency=afterok:${fails}\necho never`));
    const either = await sched.submit(alice, spec(`#SBATCH --dependency=afterok:${fails}?afterany:${fails}\necho either`));
    assert.equal((await get(any)).status.stateReason, 'Dependency');
    for (const id of [any, notOk, either]) assert.equal((await waitFor(id, done)).status.state, 'COMPLETED', `job ${id}`);
    assert.equal((await waitFor(ok, done)).status.stateReason, 'DependencyNeverSatisfied');
    // A job that completes leaves afternotok unsatisfiable.
    const good = await sched.submit(alice, spec('true'));
    const never = await sched.submit(alice, spec(`#SBATCH --dependency=afternotok:${good}\necho never`));
    assert.equal((await waitFor(never, done)).status.stateReason, 'DependencyNeverSatisfied');
    // after: once the other job started.
    const long = await sched.submit(alice, spec('sleep 30'));
    const started = await sched.submit(alice, spec(`#SBATCH --dependency=after:${long}\necho started`));
    assert.equal((await waitFor(started, done)).status.state, 'COMPLETED');
    assert.equal((await get(long)).status.state, 'RUNNING');
    await sched.cancel(alice, long);
    // singleton: one job of a name and user at a time.
    const one = await sched.submit(alice, spec('sleep 1', { name: 'single' }));
    const two = await sched.submit(alice, spec('#SBATCH --dependency=singleton\necho two', { name: 'single' }));
    assert.equal((await get(two)).status.stateReason, 'Dependency');
    const r2 = await waitFor(two, done);
    assert.ok(r2.time.start! >= (await get(one)).time.end!, 'the second started after the first ended');
    await assert.rejects(sched.submit(alice, spec(`#SBATCH --dependency=afterok:${good},afterany:${good}?afterany:${good}\ntrue`)), /Job dependency problem/);
    await assert.rejects(sched.submit(alice, spec('#SBATCH --dependency=whenever:1\ntrue')), /Job dependency problem/);
  });

  void test('the job sees the Slurm variables and its env', async () => {
    const id = await sched.submit(alice, spec('echo "$SLURM_JOB_ID|$SLURM_JOB_NAME|$SLURM_SUBMIT_DIR|$SLURM_JOB_PARTITION|$SLURM_CLUSTER_NAME|$FOO|$HOME"', {
      name: 'envjob', env: { FOO: 'bar baz' }, partition: 'long',
    }));
    await waitFor(id, done);
    assert.equal(readFileSync(join(work, `slurm-${id}.out`), 'utf8'), `${id}|envjob|${work}|long|testcluster|bar baz|${alice.home}\n`);
  });

  void test('hostile working directory and job name stay strings', async () => {
    const marker = `f7t-pwned-${process.pid}`;
    const evil = join(work, `a'; touch ${marker}; echo "$(touch ${marker})`);
    mkdirSync(evil);
    chownSync(evil, alice.uid, alice.gid);
    const id = await sched.submit(alice, spec('pwd; echo "$SLURM_JOB_NAME"', { workingDirectory: evil, name: `$(touch ${marker})\`touch ${marker}\`;touch ${marker}` }));
    const r = await waitFor(id, done);
    assert.equal(r.status.state, 'COMPLETED');
    assert.equal(readFileSync(join(evil, `slurm-${id}.out`), 'utf8'), `${evil}\n$(touch ${marker})\`touch ${marker}\`;touch ${marker}\n`);
    for (const dir of ['/', work, evil, alice.home, tmpdir()]) assert.equal(existsSync(join(dir, marker)), false, `nothing ran in ${dir}`);
  });

  void test('files are opened with the user\'s rights: stdin is read, an unwritable output fails the job', async () => {
    const input = join(work, 'in.txt');
    execFileSync('setpriv', [`--reuid=${alice.uid}`, `--regid=${alice.gid}`, '--init-groups', '--', 'bash', '-c', 'printf "line1\\nline2\\n" > "$1"', '_', input]);
    const id = await sched.submit(alice, spec('#SBATCH --input=in.txt\nwc -l'));
    await waitFor(id, done);
    assert.equal(readFileSync(join(work, `slurm-${id}.out`), 'utf8').trim(), '2');
    const rootOnly = mkdtempSync(join(tmpdir(), 'f7t-rootonly-'));
    made.push(rootOnly);
    const bad = await sched.submit(alice, spec('echo never', { standardOutput: join(rootOnly, 'out.txt') }));
    const r = await waitFor(bad, done);
    assert.equal(r.status.state, 'FAILED');
    assert.equal(existsSync(join(rootOnly, 'out.txt')), false);
  });

  void test('sbatch refusals: unknown partition, bad time, not a script', async () => {
    await assert.rejects(sched.submit(alice, spec('true', { partition: 'nope' })), (e: unknown) =>
      e instanceof SchedulerError && e.status === 500 && e.message.includes('sbatch: error: invalid partition specified: nope'));
    await assert.rejects(sched.submit(alice, spec('#SBATCH --time=soon\ntrue')), /Invalid --time specification/);
    await assert.rejects(sched.submit(alice, spec('#SBATCH --time=3-0\ntrue')), /Requested time limit is invalid/);
    await assert.rejects(sched.submit(alice, spec('true', { constraints: 'gpu' })), /Invalid feature specification/);
    await assert.rejects(sched.submit(alice, spec('true', { reservation: 'nosuch' })), /Requested reservation is invalid/);
    await assert.rejects(sched.submit(alice, spec('true', { afterOk: '999999' })), /Job dependency problem/);
    await assert.rejects(sched.submit(alice, { scriptPath: '/nonexistent/job.sh', workingDirectory: work, env: {} }), /Unable to open file/);
    await assert.rejects(sched.submit(alice, { script: 'echo hi', workingDirectory: work, env: {} }), /does not look like a batch script/);
  });

  void test('partitions, nodes, reservations and accounts', async () => {
    assert.deepEqual((await sched.partitions(alice)).map((p) => [p.name, p.maxTime]), [['debug', 3600], ['long', 172800], ['xfer', 86400]]);
    const [maint] = await sched.reservations(alice);
    assert.equal(maint.name, 'maint');
    assert.equal(maint.state, 'inactive');
    const now = Math.floor(Date.now() / 1000);
    await sched.createReservation({ name: 'r1', startTime: now + 3600, endTime: now + 7200, users: [alice.name] });
    await assert.rejects(sched.createReservation({ name: 'r1', startTime: now + 3600, endTime: now + 7200 }), (e: unknown) => e instanceof SchedulerError && e.status === 400);
    await assert.rejects(sched.createReservation({ name: 'r2', startTime: now + 7200, endTime: now + 3600 }), (e: unknown) => e instanceof SchedulerError && e.status === 400);
    await sched.updateReservation({ name: 'r1', startTime: now - 10, endTime: now + 7200 });
    assert.equal((await sched.reservations(alice)).find((r) => r.name === 'r1')?.state, 'active');
    // While r1 is active it holds the node: other jobs wait, r1's own job runs.
    const other = await sched.submit(bob, { ...spec('true'), workingDirectory: bob.home });
    assert.match((await sched.get(bob, other))!.status.stateReason ?? '', /Reservation/);
    const inside = await sched.submit(alice, spec('true', { reservation: 'r1' }));
    assert.equal((await waitFor(inside, done)).status.state, 'COMPLETED');
    await sched.deleteReservation('r1');
    assert.equal((await waitFor(other, done)).status.state, 'COMPLETED');
    await assert.rejects(sched.deleteReservation('r1'), (e: unknown) => e instanceof SchedulerError && e.status === 400);
    assert.deepEqual(await sched.accounts(alice), alice.name === 'alice' ? [{ name: 'proj', default: true }, { name: 'proj2', default: false }] : [{ name: 'proj', default: true }]);
    assert.equal(await sched.version(), 'local-1.0');
  });

  void test('ids keep increasing and history survives a restart; running jobs become NODE_FAIL', async () => {
    const finishedId = await sched.submit(alice, spec('echo old'));
    await waitFor(finishedId, done);
    const runningIds: string[] = [];
    for (let i = 0; i < Math.max(1, cpus().length); i++) runningIds.push(await sched.submit(alice, spec('sleep 30')));
    for (const r of runningIds) await waitFor(r, (j) => j.status.state === 'RUNNING');
    const runningId = runningIds[runningIds.length - 1];
    const pendingId = await sched.submit(alice, spec('echo survived'));
    assert.equal((await get(pendingId)).status.state, 'PENDING');
    await sched.stop();
    sched = new LocalScheduler({ cluster: 'testcluster', stateDir });
    await sched.start();
    assert.equal((await get(finishedId)).status.state, 'COMPLETED');
    assert.equal((await get(runningId)).status.state, 'NODE_FAIL');
    // A job still queued at shutdown keeps its place and runs after the restart.
    assert.equal((await waitFor(pendingId, done)).status.state, 'COMPLETED');
    assert.equal(readFileSync(join(work, `slurm-${pendingId}.out`), 'utf8'), 'survived\n');
    const next = await sched.submit(alice, spec('echo new'));
    assert.ok(Number(next) > Number(pendingId));
    await waitFor(next, done);
    const listed = (await sched.list(alice, { finishedWithinSeconds: 3600 })).map((j) => j.jobId);
    assert.ok(listed.includes(finishedId) && listed.includes(next));
    const acct = await sched.accounting(alice, { jobIds: [finishedId] });
    assert.deepEqual(acct.map((j) => j.jobId), [finishedId]);
    assert.equal((await sched.list(alice, { name: 'nomatch' })).length, 0);
  });
});

void describe('local scheduler: an array\'s script is stored once and removed after the array ends', { skip }, () => {
  let alice: UnixUser;
  let stateDir: string;
  let work: string;
  let sched: LocalScheduler;
  const scripts = (): string[] => readdirSync(join(stateDir, 'local-scripts'));

  before(async () => {
    [alice] = pickUsers();
    stateDir = mkdtempSync(join(tmpdir(), 'f7t-local-scripts-'));
    work = mkdtempSync(join(alice.home, 'lsched-scripts-'));
    chownSync(work, alice.uid, alice.gid);
    // An ended submission's script stays readable for 1 s here (300 s by default, as Slurm's MinJobAge).
    sched = new LocalScheduler({ cluster: 'testcluster', stateDir, scriptKeepSeconds: 1 });
    await sched.start();
  });
  after(async () => {
    await sched.stop();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  void test('1,001 tasks of a 256 KiB script take one copy on disk, readable from every task until it is gone', async () => {
    // Security review 3, finding 3: this used to store 1,001 copies (254 MiB) and keep them forever.
    const padding = `# ${'x'.repeat(1022)}\n`.repeat(256);
    const id = await sched.submit(alice, { script: `#!/bin/bash\n#SBATCH --array=0-1000\n#SBATCH --time=00:10:00\n#SBATCH -o /dev/null\n${padding}sleep 60\n`, workingDirectory: work, env: {} });
    assert.deepEqual(scripts(), [`${id}.sh`], 'one stored script for the whole array');
    assert.ok(statSync(join(stateDir, 'local-scripts', `${id}.sh`)).size < 300 * 1024);
    const task = (await sched.lookup(alice, id)).find((t) => t.arrayTaskId === '500');
    assert.ok(task);
    assert.match(String((await sched.metadata(alice, task.jobId))?.script), /sleep 60/, 'a task reads the array\'s script');
    await sched.cancel(alice, id);
    assert.match(String((await sched.metadata(alice, id))?.script), /sleep 60/, 'still readable right after the end');
    for (const end = Date.now() + 10_000; scripts().length > 0 && Date.now() < end;) await sleep(100);
    assert.deepEqual(scripts(), [], 'removed once the array has ended and the keep time has passed');
    assert.equal((await sched.metadata(alice, task.jobId))?.script, null);
  });
});
