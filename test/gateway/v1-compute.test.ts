/**
 * v1 compute over real HTTP: submissions (upload and path) become tasks that reach 200 with the
 * JobSubmit object; the queue listing (keyed "0", "1", ...), accounting (an array, `{}` when empty),
 * cancel, Q3, nodes, partitions and reservations; submission errors (env JSON 404, 413, bad path).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { gw, sleep, token } from './support';
import { scratch, taskOf, uploadFile, v1, waitTask } from './v1-support';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;

before(async () => {
  ({ path: dir, remove: cleanup } = await scratch('compute'));
});
after(async () => cleanup());

const script = (body: string): { blob: Blob; filename: string } => ({ blob: new Blob([`#!/bin/bash\n#SBATCH --time=00:05:00\n${body}\n`]), filename: 'script.batch' });

/** Polls acct until the job has a final state. */
async function finalState(jobId: string): Promise<{ state: string; [k: string]: string }> {
  for (let i = 0; i < 120; i++) {
    const task = await taskOf('/compute/acct', { query: { jobs: jobId } });
    const rows = Array.isArray(task.data) ? (task.data as { state: string; jobid: string }[]) : [];
    const row = rows.find((r) => r.jobid === jobId);
    if (row && !['PENDING', 'RUNNING', 'COMPLETING', 'CONFIGURING'].includes(row.state)) return row;
    await sleep(500);
  }
  throw new Error(`job ${jobId} did not finish`);
}

void describe('v1 compute: submit', () => {
  void it('jobs/upload: 201 task, 100 "Queued" at once, then 200 with a JobSubmit (string jobid); env reaches the job', async () => {
    const r = await v1('/compute/jobs/upload', { method: 'POST', multipart: { env: JSON.stringify({ V1_GREETING: 'hello-v1' }), file: script('echo "$V1_GREETING"') } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.success, 'Task created');
    const first = await v1('/tasks', { query: { tasks: r.body.task_id as string }, machine: null });
    const t0 = first.body.tasks[r.body.task_id as string];
    assert.ok(t0, 'task visible right after the call');
    assert.ok(t0.status === '100' || t0.status === '200');
    if (t0.status === '100') assert.equal(t0.data, 'Queued');
    const task = await waitTask(r.body.task_id as string);
    assert.equal(task.status, '200', JSON.stringify(task.data));
    assert.equal(task.service, 'compute');
    const d = task.data;
    assert.equal(d.result, 'Job submitted');
    assert.match(d.jobid as string, /^\d+$/);
    for (const k of ['job_file', 'job_file_out', 'job_file_err', 'job_data_out', 'job_data_err', 'job_info_extra']) assert.equal(typeof d[k], 'string', k);
    const end = await finalState(d.jobid as string);
    assert.equal(end.state, 'COMPLETED');
    const out = await v1('/utilities/view', { query: { targetPath: d.job_file_out as string } });
    assert.equal(out.body.output, 'hello-v1\n');
  });

  void it('jobs/path runs a script already on the cluster; a missing script is 400 + X-Invalid-Path', async () => {
    assert.equal((await uploadFile(dir, 'job.sh', '#!/bin/bash\necho from-path\n')).status, 201);
    const task = await taskOf('/compute/jobs/path', { method: 'POST', form: { targetPath: `${dir}/job.sh` } }, 201);
    assert.equal(task.status, '200', JSON.stringify(task.data));
    assert.equal(task.data.job_file, `${dir}/job.sh`);
    const missing = await v1('/compute/jobs/path', { method: 'POST', form: { targetPath: `${dir}/nope.sh` } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.description, 'Failed to submit job');
    assert.ok(missing.headers.has('x-invalid-path'));
    const folder = await v1('/compute/jobs/path', { method: 'POST', form: { targetPath: dir } });
    assert.equal(folder.status, 400);
    assert.ok(folder.headers.has('x-a-directory'));
  });

  void it('invalid env JSON is 404; no file part is 400; an oversized script is 413', async () => {
    const env = await v1('/compute/jobs/upload', { method: 'POST', multipart: { env: '{not json', file: script('true') } });
    assert.equal(env.status, 404);
    assert.equal(env.body.description, 'Failed to submit job');
    assert.match(env.body.error as string, /^Invalid JSON in 'env' variable/);
    const pathEnv = await v1('/compute/jobs/path', { method: 'POST', form: { targetPath: `${dir}/job.sh`, env: '[' } });
    assert.equal(pathEnv.status, 404);
    const none = await v1('/compute/jobs/upload', { method: 'POST', multipart: { account: 'x' } });
    assert.equal(none.status, 400);
    const big = await v1('/compute/jobs/upload', { method: 'POST', multipart: { file: { blob: new Blob([new Uint8Array(6 * 1024 * 1024)]), filename: 'big.sh' } } });
    assert.equal(big.status, 413);
  });

  void it('a script the scheduler refuses finishes the task with 400 and the error text', async () => {
    const r = await v1('/compute/jobs/upload', { method: 'POST', multipart: { file: { blob: new Blob(['#!/bin/bash\n#SBATCH --partition=no-such-partition\ntrue\n']), filename: 'bad.sh' } } });
    assert.equal(r.status, 201);
    const task = await waitTask(r.body.task_id as string);
    assert.equal(task.status, '400');
    assert.equal(task.description, 'Finished with errors');
    assert.equal(typeof task.data, 'string');
    assert.match(task.data as string, /partition/i);
  });
});

void describe('v1 compute: queue, cancel, accounting', () => {
  void it('GET jobs lists a running job under "0" with the swapped start_time/time; DELETE cancels it (200 task)', async () => {
    const sub = await taskOf('/compute/jobs/upload', { method: 'POST', multipart: { file: script('sleep 60') } }, 201);
    const jobId = sub.data.jobid as string;
    let row: Record<string, string> | undefined;
    for (let i = 0; i < 60 && row?.state !== 'RUNNING'; i++) {
      const list = await taskOf('/compute/jobs', { query: { jobs: jobId } });
      assert.equal(list.status, '200');
      row = list.data['0'];
      if (row?.state !== 'RUNNING') await sleep(500);
    }
    assert.ok(row, 'job listed');
    assert.equal(row.jobid, jobId);
    assert.equal(row.state, 'RUNNING');
    assert.match(row.start_time, /^\d+:\d\d$/);
    assert.match(row.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    for (const k of ['partition', 'name', 'user', 'time_left', 'nodes', 'nodelist', 'job_file', 'job_file_out', 'job_file_err', 'job_data_out', 'job_data_err', 'job_info_extra']) {
      assert.equal(typeof row[k], 'string', k);
    }
    const cancel = await v1(`/compute/jobs/${jobId}`, { method: 'DELETE' });
    assert.equal(cancel.status, 200);
    const ct = await waitTask(cancel.body.task_id as string);
    assert.equal(ct.status, '200', JSON.stringify(ct.data));
    assert.equal(typeof ct.data, 'string');
    assert.match((await finalState(jobId)).state, /^CANCELLED/);
  });

  void it("another user sees the job only with userJobs=false, without file details, and cannot cancel it", { skip: gatewayOnly() }, async () => {
    const g = gw();
    const other = (g.clients ?? []).find((c) => c.user !== g.user);
    if (!other) throw new Error('no second client');
    const auth = `Bearer ${await token(other.clientId, other.clientSecret)}`;
    const sub = await taskOf('/compute/jobs/upload', { method: 'POST', multipart: { file: script('sleep 30') } }, 201);
    const jobId = sub.data.jobid as string;
    try {
      const own = await v1('/compute/jobs', { query: { jobs: jobId }, auth });
      assert.deepEqual((await waitTask(own.body.task_id as string, undefined, 60_000, auth)).data, {});
      const all = await v1('/compute/jobs', { query: { jobs: jobId, userJobs: 'false' }, auth });
      const row = (await waitTask(all.body.task_id as string, undefined, 60_000, auth)).data['0'];
      assert.equal(row?.jobid, jobId);
      assert.equal(row.job_file_out, '');
      const cancel = await v1(`/compute/jobs/${jobId}`, { method: 'DELETE', auth });
      const ct = await waitTask(cancel.body.task_id as string, undefined, 60_000, auth);
      assert.equal(ct.status, '400');
      assert.equal(ct.data, 'User does not have permission to cancel job');
    } finally {
      await taskOf(`/compute/jobs/${jobId}`, { method: 'DELETE' });
    }
  });

  void it('paginated listing past the end fails the task (Q8); an unknown job is {}', async () => {
    const empty = await taskOf('/compute/jobs', { query: { jobs: '999999' } });
    assert.equal(empty.status, '200');
    assert.deepEqual(empty.data, {});
    const past = await taskOf('/compute/jobs', { query: { jobs: '999999', pageNumber: '3' } });
    assert.equal(past.status, '400');
    assert.match(past.data as string, /^pageNumber \(3\) is greater than total pages \(1\)$/);
    const bad = await v1('/compute/jobs', { query: { jobs: '12;3' } });
    assert.equal(bad.status, 400);
  });

  void it('acct: an array of AcctJob for known jobs, {} when none (Q7); invalid times are ignored', async () => {
    const sub = await taskOf('/compute/jobs/upload', { method: 'POST', multipart: { file: script('true') } }, 201);
    const row = await finalState(sub.data.jobid as string);
    for (const k of ['jobid', 'partition', 'name', 'user', 'state', 'start_time', 'time', 'cpu_time', 'elapsed_time', 'termination_time', 'time_left', 'nodes', 'nodelist', 'exit_code']) {
      assert.equal(typeof row[k], 'string', k);
    }
    const none = await taskOf('/compute/acct', { query: { jobs: '999999' } });
    assert.deepEqual(none.data, {});
    const today = new Date();
    const since = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    const withTime = await taskOf('/compute/acct', { query: { jobs: sub.data.jobid as string, starttime: since, endtime: 'garbage' } });
    assert.ok(Array.isArray(withTime.data));
  });

  void it('GET jobs/{id} answers a task that never completes (Q3)', async () => {
    const r = await v1('/compute/jobs/1');
    assert.equal(r.status, 200);
    await sleep(500);
    const task = (await v1(`/tasks/${r.body.task_id as string}`, { machine: null })).body.task;
    assert.equal(task.status, '100');
    assert.equal(task.data, 'Queued');
  });
});

void describe('v1 compute: cluster information', () => {
  void it('partitions, nodes and reservations as task data', async () => {
    const parts = await taskOf('/compute/partitions');
    assert.equal(parts.status, '200');
    const names = (parts.data as { PartitionName: string }[]).map((p) => p.PartitionName);
    assert.ok(names.includes('debug'));
    const p0 = parts.data[0];
    assert.deepEqual(Object.keys(p0).sort(), ['Default', 'PartitionName', 'State', 'TotalCPUs', 'TotalNodes']);
    for (const v of Object.values(p0)) assert.equal(typeof v, 'string');
    const only = await taskOf('/compute/partitions', { query: { partitions: 'debug' } });
    assert.deepEqual((only.data as { PartitionName: string }[]).map((p) => p.PartitionName), ['debug']);
    const nodes = await taskOf('/compute/nodes');
    const n0 = nodes.data[0];
    assert.deepEqual(Object.keys(n0).sort(), ['ActiveFeatures', 'NodeName', 'Partitions', 'State']);
    assert.ok(Array.isArray(n0.State));
    const one = await taskOf(`/compute/nodes/${n0.NodeName as string}`);
    assert.equal(one.data[0].NodeName, n0.NodeName);
    const res = await taskOf('/compute/reservations');
    assert.equal(res.status, '200');
    assert.ok(Array.isArray(res.data));
    for (const r of res.data as Record<string, unknown>[]) assert.deepEqual(Object.keys(r).sort(), ['EndTime', 'Features', 'Nodes', 'ReservationName', 'StartTime', 'State']);
  });
});
