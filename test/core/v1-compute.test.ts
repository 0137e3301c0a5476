/**
 * API v1 compute, tasks, internal transfers and reservations through the v1 adapter over real
 * HTTP: jobs change state, tasks are polled to their end, failures arrive as typed errors.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CancelledError, FirecrestError, InvalidInputError, NotFoundError, type FirecrestClient, type Progress, type V1Extras } from '../../src/core/index';
import { reservationSlot } from '../support/reservationSlot';
import { client, dec, enc, scratchDir, t } from './support';

void describe('v1 compute and tasks', { skip: t.apiVersion !== 'v1' ? 'runs with --api v1' : false }, () => {
  let c: FirecrestClient;
  let x: FirecrestClient & V1Extras;
  let dir: string;
  const S = t.system;
  before(async () => {
    c = await client({}, { apiVersion: 'v1' });
    x = c as FirecrestClient & V1Extras;
    dir = await scratchDir(c, 'v1jobs');
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('inline submit (env, #SBATCH overrides), wait with progress, job, metadata, list, accounting', async () => {
    const id = await c.submitJob(S, {
      name: 'v1-hello',
      workingDirectory: dir,
      script: '#!/bin/bash\n#SBATCH --time=00:02:00\necho "hello $GREETING"\npwd\n',
      env: { GREETING: 'world' },
      stdoutPath: `${dir}/hello.out`,
    });
    assert.match(id, /^\d+$/);
    const seen: Progress[] = [];
    const done = await c.waitForJob(S, id, { overallTimeoutMs: 120_000, onProgress: (p) => seen.push(p) });
    assert.equal(done.stateClass, 'completed', done.state);
    assert.ok(seen.length > 0);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/hello.out`)).trim(), `hello world\n${dir}`, 'runs in workingDirectory');
    const j = await c.job(S, id);
    assert.equal(j.id, id);
    assert.equal(j.isFinal, true);
    assert.equal((await c.jobMetadata(S, id)).script, undefined, 'v1 offers no script');
    const acct = await c.accounting(S, { jobIds: [id] });
    assert.deepEqual(acct.map((a) => a.id), [id]);
    assert.equal(acct[0].exitCode, 0);
    // sacct's empty answer is `{}` (Q7) and an empty page fails its task (Q8): both read as [].
    assert.deepEqual(await c.accounting(S, { jobIds: [id], startTime: Math.floor(Date.now() / 1000) + 3600 }), []);
  });

  void it("an inline script's output lands in the working directory, not in v1's upload folder", async () => {
    const work = `${dir}/out here`;
    await c.mkdir(S, work, { parents: true });
    const id = await c.submitJob(S, { name: 'v1-output-where', workingDirectory: work, script: '#!/bin/bash\n#SBATCH --time=00:01:00\n#SBATCH --error=err-%j.txt\necho "ran in $PWD"\necho oops >&2\n' });
    await c.waitForJob(S, id, { overallTimeoutMs: 120_000 });
    const names = (await c.list(S, work)).map((e) => e.name).sort();
    assert.deepEqual(names, [`err-${id}.txt`, `slurm-${id}.out`]);
    assert.equal(dec(await c.downloadSmall(S, `${work}/slurm-${id}.out`)), `ran in ${work}\n`);
    assert.equal(dec(await c.downloadSmall(S, `${work}/err-${id}.txt`)), 'oops\n');
  });

  void it('submit by path, the queue listing with swapped time fields, cancel (200), final state', async () => {
    await c.uploadSmall(S, dir, 'sleep.sh', enc('#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n'));
    const id = await c.submitJob(S, { scriptPath: `${dir}/sleep.sh`, workingDirectory: dir });
    let running;
    for (let i = 0; i < 100 && !running; i++) {
      running = (await c.jobs(S)).find((j) => j.id === id && j.stateClass === 'running');
      if (!running) await new Promise((r) => setTimeout(r, 300));
    }
    assert.ok(running, 'the job runs');
    assert.ok(running.elapsedSeconds !== undefined && running.elapsedSeconds >= 0, 'elapsed time from start_time');
    assert.ok(running.startTime !== undefined && Math.abs(running.startTime - Date.now() / 1000) < 3600, 'start timestamp from time');
    await c.cancelJob(S, id);
    const end = await c.waitForJob(S, id, { overallTimeoutMs: 60_000 });
    assert.equal(end.stateClass, 'cancelled', end.state);
    // Options that jobs/path cannot carry: the script on the cluster is read and sent inline with them.
    const after = await c.submitJob(S, { scriptPath: `${dir}/sleep.sh`, workingDirectory: dir, partition: 'debug', dependency: `afterany:${id}` });
    try {
      assert.equal((await c.job(S, after)).partition, 'debug');
    } finally {
      await c.cancelJob(S, after).catch(() => undefined);
    }
  });

  void it('an unknown job is NotFoundError; a failed task carries its error; abort cancels the poll', async () => {
    await assert.rejects(c.job(S, '999999'), NotFoundError);
    await assert.rejects(c.cancelJob(S, '999999'), FirecrestError);
    await assert.rejects(c.submitJob(S, { scriptPath: `${dir}/missing.sh`, workingDirectory: dir }), NotFoundError);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(c.jobs(S, { signal: ac.signal }), (e: unknown) => e instanceof CancelledError || (e instanceof Error && e.name === 'AbortError'));
  });

  void it('partitions, nodes and reservations come from compute tasks', async () => {
    const parts = await c.partitions(S);
    assert.ok(parts.length > 0 && parts.every((p) => p.name && p.state));
    const nodes = await c.nodes(S);
    assert.ok(nodes.length > 0 && nodes.every((n) => n.name && n.states.length > 0));
    assert.ok(Array.isArray(await c.reservations(S)));
  });

  void it('the tasks list shows what was run', async () => {
    const tasks = await x.tasks();
    assert.ok(tasks.length > 0);
    assert.ok(tasks.every((k) => /^[0-9a-f]{32}$/.test(k.id) && k.status >= 100));
    assert.ok(tasks.some((k) => k.status === 200));
  });

  void it('internal transfer jobs: cp with a time limit, then rm after it (dependency)', async () => {
    await c.uploadSmall(S, dir, 'data.txt', enc('payload'));
    const cp = await x.internalTransfer(S, 'cp', { sourcePath: `${dir}/data.txt`, targetPath: `${dir}/data.cp`, jobName: 'v1-cp', time: '00:05:00' });
    assert.match(cp.jobId, /^\d+$/);
    assert.ok(cp.taskId);
    await c.waitForTransferJob(cp, { overallTimeoutMs: 120_000 });
    assert.equal(dec(await c.downloadSmall(S, `${dir}/data.cp`)), 'payload');
    const rm = await x.internalTransfer(S, 'rm', { targetPath: `${dir}/data.cp`, stageOutJobId: cp.jobId });
    await c.waitForTransferJob(rm, { overallTimeoutMs: 120_000 });
    await assert.rejects(c.stat(S, `${dir}/data.cp`), NotFoundError);
    await assert.rejects(x.internalTransfer(S, 'cp', { sourcePath: `${dir}/data.txt`, targetPath: `${dir}/y`, time: 'soon' }), InvalidInputError);
  });

  void it('reservations: client-side validation, then create, list with flags, update, delete', async (ctx) => {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    // A random slot: runs side by side share one Slurm node (see reservationSlot).
    const start = reservationSlot();
    // API v1 wants a node type: a feature the nodes have (the test clusters' nodes have f7t).
    const features = [...new Set((await c.nodes(S)).flatMap((n) => n.features ?? []))];
    assert.ok(features.length > 0, `the nodes list features: ${JSON.stringify(features)}`);
    const nodeType = features.includes('f7t') ? 'f7t' : features[0];
    const r = { numberOfNodes: 1, nodeType, starttime: iso(start), endtime: iso(start + 3600_000) };
    await assert.rejects(x.reservationsCreate(S, 'Bad Name', 'proj', r), InvalidInputError);
    await assert.rejects(x.reservationsCreate(S, 'v1res', 'proj', { ...r, endtime: r.starttime }), InvalidInputError);
    await assert.rejects(x.reservationsCreate(S, 'v1res', 'proj', { ...r, nodeType: '' }), (e: unknown) => e instanceof InvalidInputError && /'nodeType' is required/.test(e.message));
    // v1 lists no accounts: FIRECREST_ACCOUNT, else (the local gateway on Slurm) the user's default
    // in the accounting database, else the primary group.
    const info = await c.userInfo(S);
    const slurmDefault = t.gateway?.scheduler === 'slurm'
      ? execFileSync('sacctmgr', ['--noheader', '--parsable2', 'show', 'user', info.user.name, 'format=defaultaccount'], { encoding: 'utf8' }).trim().split('\n')[0]
      : undefined;
    const account = process.env.FIRECREST_ACCOUNT || slurmDefault || (info.accounts?.find((a) => a.isDefault)?.name ?? info.group.name);
    const name = `v1res${Date.now() % 100000}`;
    try {
      await x.reservationsCreate(S, name, account, r);
    } catch (e) {
      // A missing or malformed field is the client's fault; a site's tool may still refuse the
      // account or the permission: then the skip says what is missing.
      if (t.gateway || !(e instanceof FirecrestError) || /form data input missing|format is not valid/.test(e.message)) throw e;
      ctx.skip(`the site's reservation tool refused account ${account} (${e.message}): set FIRECREST_ACCOUNT to one it accepts`);
      return;
    }
    try {
      const listed = (await x.reservationsManaged(S)).find((v) => v.name === name);
      assert.ok(listed, 'listed');
      assert.ok(Array.isArray(listed.flags));
      await x.reservationsUpdate(S, name, { ...r, endtime: iso(start + 7200_000) });
    } finally {
      await x.reservationsDelete(S, name);
    }
    assert.ok(!(await x.reservationsManaged(S)).some((v) => v.name === name));
  });
});
