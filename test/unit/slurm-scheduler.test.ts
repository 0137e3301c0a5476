/**
 * The Slurm backend against the real single-node Slurm of scripts/slurm.sh (skipped when no Slurm
 * answers, when not root, or when alice/bob do not exist). Jobs run as alice and bob.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { SlurmScheduler, slurmAvailable } from '../../gateway/src/scheduler/slurm';
import { SchedulerError, type JobRecord } from '../../gateway/src/scheduler/types';
import type { UnixUser } from '../../gateway/src/users';
import { runAs } from '../../gateway/src/exec';
import { durationSeconds } from '../../gateway/src/scheduler/slurm-run';
import { expandPattern } from '../../gateway/src/scheduler/slurm-jobs';
import { normaliseNodeState, parsePartitions, parseReservations } from '../../gateway/src/scheduler/slurm-status';
import { sbatchCall } from '../../gateway/src/scheduler/slurm-submit';

function unixUser(name: string): UnixUser | undefined {
  try {
    const [, , uid, gid, , home] = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
    const group = execFileSync('id', ['-gn', name], { encoding: 'utf8' }).trim();
    return { name, uid: Number(uid), gid: Number(gid), group, home, groups: [{ name: group, gid: Number(gid) }] };
  } catch {
    return undefined;
  }
}

const alice = unixUser('alice');
const bob = unixUser('bob');
const isRoot = process.getuid?.() === 0;
const skip = !isRoot ? 'needs root (jobs run as alice and bob)' : !alice || !bob ? 'needs users alice and bob (scripts/slurm.sh up)' : false;

const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL)/;

void describe('SlurmScheduler (real Slurm)', { skip }, () => {
  const slurm = new SlurmScheduler({ cluster: 'cluster', stateDir: '/tmp' });
  let available = false;
  let dir = '';
  const started: string[] = [];

  before(async () => {
    available = await slurmAvailable();
    if (!available) return;
    dir = `${alice!.home}/slurm-test-${process.pid}`;
    await runAs(alice!, ['mkdir', '-p', dir]);
  });

  after(async () => {
    for (const id of started) await runAs(alice!, ['scancel', id]);
    if (dir) await runAs(alice!, ['rm', '-rf', dir]);
  });

  const needSlurm = (t: { skip: (m: string) => void }): boolean => {
    if (!available) t.skip('no Slurm controller answers (run scripts/slurm.sh up)');
    return available;
  };

  async function waitFor(user: UnixUser, id: string, done: (j: JobRecord) => boolean, ms = 30000): Promise<JobRecord> {
    const deadline = Date.now() + ms;
    let last: JobRecord | undefined;
    while (Date.now() < deadline) {
      last = await slurm.get(user, id);
      if (last && done(last)) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`job ${id} did not reach the expected state; last: ${JSON.stringify(last?.status)}`);
  }

  void it('runs a job as alice that writes a file; the job ends COMPLETED with exit code 0', async (t) => {
    if (!needSlurm(t)) return;
    const id = await slurm.submit(alice!, {
      script: '#!/bin/bash\necho "hello $(whoami) $GREETING" > result.txt\necho to-stdout\n',
      workingDirectory: dir, name: 'writer', standardOutput: `${dir}/%x-%j.out`,
      env: { GREETING: 'a,b "quoted"' },
    });
    assert.match(id, /^\d+$/);
    // The exit code comes from accounting: squeue reports the end before slurmdbd has recorded it.
    const job = await waitFor(alice!, id, (j) => FINAL.test(j.status.state) && j.status.exitCode !== null);
    assert.equal(job.status.state, 'COMPLETED');
    assert.equal(job.status.exitCode, 0);
    assert.equal(job.name, 'writer');
    assert.equal(job.user, 'alice');
    assert.equal(job.account, 'proj');
    assert.equal(job.partition, 'debug');
    assert.equal(job.workingDirectory, dir);
    assert.equal(job.time.limit, 3600);
    assert.equal(job.standardOutput, `${dir}/writer-${id}.out`);
    assert.equal(await readFile(`${dir}/result.txt`, 'utf8'), 'hello alice a,b "quoted"\n');
    assert.equal((await stat(`${dir}/result.txt`)).uid, alice!.uid);
    assert.equal(await readFile(`${dir}/writer-${id}.out`, 'utf8'), 'to-stdout\n');
    const listed = await slurm.list(alice!, {});
    assert.ok(listed.some((j) => j.jobId === id), 'list shows the finished job');
    const stored = await waitFor(alice!, id, (j) => !!j.tasks?.length);
    assert.ok(stored.tasks!.some((s) => s.id === `${id}.batch`), 'the batch step is a task');
    assert.equal(typeof stored.cpuTime, 'number');
    const acct = await slurm.accounting(alice!, { jobIds: [id] });
    assert.deepEqual(acct.map((j) => [j.jobId, j.status.state, j.user]), [[id, 'COMPLETED', 'alice']]);
  });

  void it('reports FAILED with the script exit code', async (t) => {
    if (!needSlurm(t)) return;
    const id = await slurm.submit(alice!, { script: '#!/bin/bash\nexit 3\n', workingDirectory: dir, env: {} });
    const job = await waitFor(alice!, id, (j) => FINAL.test(j.status.state) && j.status.exitCode !== null);
    assert.equal(job.status.state, 'FAILED');
    assert.equal(job.status.exitCode, 3);
    await slurm.cancel(alice!, id);
    assert.equal((await slurm.get(alice!, id))?.status.state, 'FAILED', 'cancelling a finished job changes nothing');
  });

  void it('refuses a submission past a QOS limit with 403', async (t) => {
    if (!needSlurm(t)) return;
    await assert.rejects(slurm.submit(alice!, { script: '#!/bin/bash\n#SBATCH --qos=capped\ntrue\n', workingDirectory: dir, env: {} }),
      (e: unknown) => e instanceof SchedulerError && e.status === 403
        && e.message.startsWith('Job submission rejected: accounting/QOS policy limit exceeded.'));
    await assert.rejects(slurm.submit(alice!, { script: '#!/bin/bash\ntrue\n', workingDirectory: dir, env: {}, account: 'nosuch' }),
      (e: unknown) => e instanceof SchedulerError && e.status === 500 && /Unexpected Slurm command response. exit_status:1 std_err:.*account/i.test(e.message));
  });

  void it('holds a job with afterOk pending on its dependency', async (t) => {
    if (!needSlurm(t)) return;
    const first = await slurm.submit(alice!, { script: '#!/bin/bash\nsleep 60\n', workingDirectory: dir, env: {}, timeLimitMinutes: 2 });
    started.push(first);
    const second = await slurm.submit(alice!, { script: '#!/bin/bash\ntrue\n', workingDirectory: dir, env: {}, afterOk: first, partition: 'long' });
    started.push(second);
    const job = await waitFor(alice!, second, (j) => j.status.stateReason === 'Dependency');
    assert.equal(job.status.state, 'PENDING');
    assert.equal(job.partition, 'long');
    assert.equal(job.time.start, null);
    const mine = await slurm.list(alice!, {});
    assert.ok([first, second].every((id) => mine.some((j) => j.jobId === id)));
    assert.ok(!(await slurm.list(bob!, {})).some((j) => j.jobId === first), 'bob does not see alice\'s jobs by default');
    assert.ok((await slurm.list(bob!, { allUsers: true })).some((j) => j.jobId === first), 'but does with allUsers');
    await slurm.cancel(alice!, first);
  });

  void it('cancels: bob cannot, alice can (CANCELLED by her uid); unknown jobs are 404', async (t) => {
    if (!needSlurm(t)) return;
    const id = await slurm.submit(alice!, { script: '#!/bin/bash\nsleep 120\n', workingDirectory: dir, env: {}, timeLimitMinutes: 5 });
    started.push(id);
    await waitFor(alice!, id, (j) => j.status.state === 'RUNNING');
    await assert.rejects(slurm.cancel(bob!, id), (e: unknown) =>
      e instanceof SchedulerError && e.status === 500 && /Access\/permission denied/.test(e.message));
    assert.equal((await slurm.get(alice!, id))?.status.state, 'RUNNING');
    await slurm.cancel(alice!, id);
    const job = await waitFor(alice!, id, (j) => j.status.state.startsWith('CANCELLED by'));
    assert.equal(job.status.state, `CANCELLED by ${alice!.uid}`);
    assert.equal(job.killRequestUser, 'alice');
    assert.equal(job.time.limit, 300);
    await assert.rejects(slurm.cancel(alice!, '987654321'), (e: unknown) => e instanceof SchedulerError && e.status === 404);
  });

  void it('attaches a command to a running job and reads its metadata', async (t) => {
    if (!needSlurm(t)) return;
    const script = '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n';
    const id = await slurm.submit(alice!, { script, workingDirectory: dir, env: {} });
    started.push(id);
    await waitFor(alice!, id, (j) => j.status.state === 'RUNNING');
    const out = await slurm.attach(alice!, id, 'echo "inside $SLURM_JOB_ID as $(whoami)"', 20000);
    assert.equal(out.exitCode, 0, out.stderr);
    assert.equal(out.stdout.trim(), `inside ${id} as alice`);
    const meta = await slurm.metadata(alice!, id);
    assert.equal(meta?.script, script);
    assert.equal(meta?.standardOutput, `${dir}/slurm-${id}.out`);
    assert.equal(await slurm.metadata(alice!, '987654321'), undefined);
    await slurm.cancel(alice!, id);
  });

  void it('lists partitions, nodes, the maint reservation and alice\'s accounts', async (t) => {
    if (!needSlurm(t)) return;
    const parts = await slurm.partitions(alice!);
    const byName = new Map(parts.map((p) => [p.name, p]));
    assert.deepEqual(byName.get('debug') && { d: byName.get('debug')!.isDefault, m: byName.get('debug')!.maxTime, s: byName.get('debug')!.state },
      { d: true, m: 3600, s: 'UP' });
    assert.equal(byName.get('long')?.maxTime, 2 * 86400);
    assert.equal(byName.get('xfer')?.maxTime, 86400);
    const nodes = await slurm.nodes(alice!);
    assert.ok(nodes.length >= 1);
    assert.ok(nodes[0].partitions.includes('debug'));
    assert.ok(['IDLE', 'MIXED', 'ALLOCATED'].includes(nodes[0].state[0]), nodes[0].state.join());
    const maint = (await slurm.reservations(alice!)).find((r) => r.name === 'maint');
    assert.ok(maint, 'the maint reservation exists');
    assert.equal(maint.endTime - maint.startTime, 4 * 3600);
    assert.ok(maint.startTime > Date.now() / 1000, 'maint lies in the future');
    assert.equal(maint.state, 'inactive');
    assert.ok(maint.flags.includes('MAINT'));
    const accounts = await slurm.accounts(alice!);
    assert.deepEqual(accounts.sort((a, b) => a.name.localeCompare(b.name)), [{ name: 'proj', default: true }, { name: 'proj2', default: false }]);
    assert.match(await slurm.version(), /^\d+\.\d+\.\d+/);
  });

  void it('manages reservations as the operator and reports Slurm\'s refusal as 400', async (t) => {
    if (!needSlurm(t)) return;
    const name = `t${process.pid}`;
    const start = Math.floor(Date.now() / 1000) + 10 * 86400;
    await slurm.createReservation({ name, users: ['alice'], startTime: start, endTime: start + 3600, flags: ['OVERLAP'] });
    try {
      await slurm.updateReservation({ name, startTime: start, endTime: start + 7200 });
      const r = (await slurm.reservations(alice!)).find((x) => x.name === name);
      assert.equal(r?.endTime, start + 7200);
      assert.deepEqual(r?.users, ['alice']);
    } finally {
      await slurm.deleteReservation(name);
    }
    await assert.rejects(slurm.deleteReservation(name), (e: unknown) => e instanceof SchedulerError && e.status === 400);
  });
});

// Parsing of recorded Slurm 22.05 output: runs everywhere, Slurm or not.
void describe('Slurm output parsing', () => {
  void it('reads Slurm durations in seconds', () => {
    assert.equal(durationSeconds('01:00:00'), 3600);
    assert.equal(durationSeconds('2-00:00:00'), 172800);
    assert.equal(durationSeconds('1-12'), 129600);
    assert.equal(durationSeconds('0:53'), 53);
    assert.equal(durationSeconds('5'), 300);
    assert.equal(durationSeconds('UNLIMITED'), null);
    assert.equal(durationSeconds('INFINITE'), null);
  });

  void it('normalises node states', () => {
    assert.deepEqual(normaliseNodeState('MIXED'), ['MIXED']);
    assert.deepEqual(normaliseNodeState('IDLE+DRAIN'), ['IDLE', 'DRAIN']);
    assert.deepEqual(normaliseNodeState('DOWN*+NOT_RESPONDING'), ['DOWN']);
    assert.deepEqual(normaliseNodeState('MAINT+RESERVED'), ['OFFLINE', 'RESERVED']);
    assert.deepEqual(normaliseNodeState('WEIRD'), ['UNKNOWN']);
  });

  void it('expands output file patterns', () => {
    const job = { jobId: '42', name: 'sim', user: 'alice', nodes: 'nid[001-002]' };
    assert.equal(expandPattern('/s/%x-%j.out', job), '/s/sim-42.out');
    assert.equal(expandPattern('/s/%u/%5j_%N_%%.log', job), '/s/alice/00042_nid_%.log');
  });

  void it('parses partitions and reservations', () => {
    const parts = parsePartitions('PartitionName=debug AllowGroups=ALL Default=YES MaxTime=01:00:00 Nodes=vm State=UP TotalCPUs=2 TotalNodes=1\n'
      + 'PartitionName=long Default=NO MaxTime=UNLIMITED Nodes=vm State=DOWN TotalCPUs=2 TotalNodes=1\n');
    assert.deepEqual(parts, [
      { name: 'debug', cpus: 2, totalNodes: 1, state: 'UP', isDefault: true, maxTime: 3600, nodes: 'vm' },
      { name: 'long', cpus: 2, totalNodes: 1, state: 'DOWN', isDefault: false, maxTime: null, nodes: 'vm' },
    ]);
    const [r] = parseReservations('ReservationName=maint StartTime=1795584670 EndTime=1795599070 Duration=04:00:00 Nodes=vm NodeCnt=1 '
      + 'Features=(null) Flags=MAINT,SPEC_NODES,ALL_NODES Users=root Accounts=(null) State=INACTIVE\n');
    assert.deepEqual(r, { name: 'maint', nodeList: 'vm', startTime: 1795584670, endTime: 1795599070, features: null,
      state: 'inactive', users: ['root'], accounts: [], flags: ['MAINT', 'SPEC_NODES', 'ALL_NODES'] });
  });

  void it('builds the sbatch command line; values with commas travel through the environment', () => {
    const call = sbatchCall({ script: 'echo', workingDirectory: '/w', name: 'n', account: 'proj', timeLimitMinutes: 90, afterOk: '7',
      env: { PLAIN: 'a b', LIST: 'x,y' } });
    assert.deepEqual(call.argv, ['sbatch', '--parsable', '--chdir=/w', '--job-name=n', '--account=proj', '--time=90',
      '--dependency=afterok:7', '--export=ALL,PLAIN=a b,LIST']);
    assert.deepEqual(call.env, { LIST: 'x,y' });
    assert.equal(call.stdin, 'echo');
    assert.throws(() => sbatchCall({ workingDirectory: '/w', env: { 'BAD-NAME': '1' }, script: '' }), SchedulerError);
  });
});
