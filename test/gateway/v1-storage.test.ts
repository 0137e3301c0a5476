/**
 * v1 storage over real HTTP: xfer-internal jobs on the transfer partition (JobSubmit task data, a
 * `stageOutJobId` dependency, time-limit forms), and xfer-external transfers through the staging
 * store: upload 110 -> 111 -> (presigned POST) -> 114, download 116 -> 117 with a ranged GET, refused
 * tampered/expired URLs, invalidate, and the failing flows reaching 115 / 118.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Signer } from '../../gateway/src/staging/signer';
import { gatewayOnly } from '../support/target';
import { gw, sleep } from './support';
import { scratch, taskOf, uploadFile, v1, waitTask } from './v1-support';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;

before(async () => {
  ({ path: dir, remove: cleanup } = await scratch('storage'));
});
after(async () => cleanup());

const view = async (path: string): Promise<{ status: number; output: string }> => {
  const r = await v1('/utilities/view', { query: { targetPath: path } });
  return { status: r.status, output: r.body?.output as string };
};

/** Waits for a job (by acct) to leave the queue; returns its state. */
async function jobEnd(jobId: string): Promise<string> {
  for (let i = 0; i < 240; i++) {
    const task = await taskOf('/compute/acct', { query: { jobs: jobId } });
    const row = Array.isArray(task.data) ? (task.data as { jobid: string; state: string }[]).find((r) => r.jobid === jobId) : undefined;
    if (row && !['PENDING', 'RUNNING', 'COMPLETING', 'CONFIGURING'].includes(row.state)) return row.state;
    await sleep(500);
  }
  throw new Error(`job ${jobId} did not finish`);
}

async function internal(op: string, form: Record<string, string>): Promise<{ task: Record<string, unknown> & { data: Record<string, string> }; state: string }> {
  const r = await v1(`/storage/xfer-internal/${op}`, { method: 'POST', form });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.body).sort(), ['success', 'task_id']);
  const task = await waitTask(r.body.task_id as string);
  assert.equal(task.status, '200', JSON.stringify(task.data));
  return { task, state: await jobEnd(task.data.jobid as string) };
}

void describe('v1 storage: xfer-internal', () => {
  void it('cp runs as a job on the transfer partition; the task is a compute task with JobSubmit data and a system', async () => {
    await uploadFile(dir, 'src.txt', 'internal copy');
    const { task, state } = await internal('cp', { sourcePath: `${dir}/src.txt`, targetPath: `${dir}/copy.txt`, jobName: 'v1-copy', time: '00:10:00' });
    assert.equal(task.service, 'compute');
    assert.equal(typeof task.system, 'string');
    assert.equal(task.data.result, 'Job submitted');
    assert.match(task.data.jobid, /^\d+$/);
    assert.equal(state, 'COMPLETED');
    assert.match(task.data.job_file_out, new RegExp(`/job-${task.data.jobid}\\.out$`));
    assert.equal((await view(`${dir}/copy.txt`)).output, 'internal copy');
    // Slurm's accounting row can lack descriptive fields for a moment after the job ended.
    let row = { partition: '', name: '' };
    for (let i = 0; i < 20 && row.partition === ''; i++) {
      if (i > 0) await sleep(500);
      row = ((await taskOf('/compute/acct', { query: { jobs: task.data.jobid } })).data as { partition: string; name: string }[])[0];
    }
    assert.equal(row.partition, 'xfer');
    assert.equal(row.name, 'v1-copy');
  });

  void it('mv waits for its stageOutJobId (afterok); rsync, compress, extract and rm do their work', async () => {
    const first = await taskOf('/compute/jobs/upload', { method: 'POST', multipart: { file: { blob: new Blob(['#!/bin/bash\nsleep 2\n']), filename: 'stage.sh' } } }, 201);
    await uploadFile(dir, 'mv.txt', 'moved');
    const { state } = await internal('mv', { sourcePath: `${dir}/mv.txt`, targetPath: `${dir}/moved.txt`, stageOutJobId: first.data.jobid as string, time: '5' });
    assert.equal(state, 'COMPLETED');
    assert.equal(await jobEnd(first.data.jobid as string), 'COMPLETED');
    assert.equal((await view(`${dir}/moved.txt`)).output, 'moved');
    assert.equal((await view(`${dir}/mv.txt`)).status, 400);
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/tree`, p: '' } });
    await uploadFile(`${dir}/tree`, 'f.txt', 'tree file');
    assert.equal((await internal('rsync', { sourcePath: `${dir}/tree`, targetPath: `${dir}/synced` })).state, 'COMPLETED');
    assert.equal((await view(`${dir}/synced/tree/f.txt`)).output, 'tree file');
    assert.equal((await internal('compress', { sourcePath: `${dir}/tree`, targetPath: `${dir}/tree.tar.gz`, time: '0-0:10' })).state, 'COMPLETED');
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/unpacked` } });
    assert.equal((await internal('extract', { sourcePath: `${dir}/tree.tar.gz`, targetPath: `${dir}/unpacked`, type: '.gz' })).state, 'COMPLETED');
    assert.equal((await view(`${dir}/unpacked/tree/f.txt`)).output, 'tree file');
    assert.equal((await internal('rm', { targetPath: `${dir}/synced` })).state, 'COMPLETED');
    assert.equal((await view(`${dir}/synced/tree/f.txt`)).status, 400);
  });

  void it('an unsupported time format, a bad stageOutJobId and invalid chars are 400', async () => {
    const time = await v1('/storage/xfer-internal/rm', { method: 'POST', form: { targetPath: `${dir}/x`, time: '1h' } });
    assert.equal(time.status, 400);
    assert.deepEqual(time.body, { error: 'Not supported time format' });
    const dep = await v1('/storage/xfer-internal/rm', { method: 'POST', form: { targetPath: `${dir}/x`, stageOutJobId: 'abc' } });
    assert.equal(dep.status, 400);
    const chars = await v1('/storage/xfer-internal/cp', { method: 'POST', form: { sourcePath: `${dir}/$(x)`, targetPath: `${dir}/y` } });
    assert.equal(chars.status, 400);
    assert.equal(chars.body.error, "'sourcePath' has invalid char");
  });
});

/** Posts `content` with the presigned form of an upload task at 111 (fields first, then `file`). */
async function postStaged(params: { url: string; data: Record<string, string> }, content: string, tamper?: (f: Record<string, string>) => void): Promise<Response> {
  const fields = { ...params.data };
  tamper?.(fields);
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), 'up.txt');
  return fetch(params.url, { method: 'POST', body: form });
}

void describe('v1 storage: xfer-external', () => {
  void it('upload: 110/111 with a presigned POST form, then 114 with the file at the target', async () => {
    const r = await v1('/storage/xfer-external/upload', { method: 'POST', form: { sourcePath: '/local/laptop/up.txt', targetPath: dir } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['success', 'task_id', 'task_url']);
    const t111 = await waitTask(r.body.task_id as string, (s) => s === '111' || s >= '200');
    assert.equal(t111.status, '111');
    assert.equal(t111.service, 'storage');
    const msg = t111.data.msg;
    assert.match(msg.command as string, /^curl .*-X POST /);
    assert.equal(msg.parameters.method, 'POST');
    assert.equal(msg.parameters.files, '/local/laptop/up.txt');
    for (const k of ['key', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'policy', 'x-amz-signature']) assert.equal(typeof msg.parameters.data[k], 'string', k);
    assert.equal(t111.data.target, `${dir}/up.txt`);
    const tampered = await postStaged(msg.parameters, 'evil', (f) => { f.key = `${f.key}.other`; });
    assert.equal(tampered.status, 403);
    assert.match(await tampered.text(), /<Code>AccessDenied<\/Code>/);
    const badSig = await postStaged(msg.parameters, 'evil', (f) => { f['x-amz-signature'] = '0'.repeat(64); });
    assert.equal(badSig.status, 403);
    assert.match(await badSig.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
    const ok = await postStaged(msg.parameters, 'staged upload content');
    assert.ok(ok.status >= 200 && ok.status < 300, String(ok.status));
    const done = await waitTask(r.body.task_id as string, (s) => ['114', '115', '400'].includes(s));
    assert.equal(done.status, '114', JSON.stringify(done.data));
    assert.equal(done.data.target, `${dir}/up.txt`);
    assert.equal((await view(`${dir}/up.txt`)).output, 'staged upload content');
  });

  void it('upload: the ready-to-run curl command of data.msg does the POST (what pyfirecrest finish_upload runs)', async () => {
    const local = mkdtempSync(join(tmpdir(), 'f7t-v1-up-'));
    try {
      const file = join(local, 'curl-up.txt');
      writeFileSync(file, 'sent by curl\n');
      const r = await v1('/storage/xfer-external/upload', { method: 'POST', form: { sourcePath: file, targetPath: dir } });
      const t111 = await waitTask(r.body.task_id as string, (st) => st === '111' || st >= '200');
      const run = spawnSync('bash', ['-c', t111.data.msg.command as string], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(run.status, 0, run.stderr);
      const done = await waitTask(r.body.task_id as string, (st) => ['114', '115', '400'].includes(st));
      assert.equal(done.status, '114', JSON.stringify(done.data));
      assert.equal((await view(`${dir}/curl-up.txt`)).output, 'sent by curl\n');
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  void it('upload into a folder that is gone by the time the file arrives ends at 115; a bad target is 400', async () => {
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/vanishing` } });
    const r = await v1('/storage/xfer-external/upload', { method: 'POST', form: { sourcePath: 'v.txt', targetPath: `${dir}/vanishing` } });
    const t111 = await waitTask(r.body.task_id as string, (s) => s === '111' || s >= '200');
    await v1('/utilities/rm', { method: 'DELETE', form: { targetPath: `${dir}/vanishing` } });
    assert.ok((await postStaged(t111.data.msg.parameters, 'lost')).ok);
    const end = await waitTask(r.body.task_id as string, (s) => ['114', '115', '400'].includes(s));
    assert.equal(end.status, '115');
    assert.equal(end.description, 'Download from Object Storage error');
    const bad = await v1('/storage/xfer-external/upload', { method: 'POST', form: { sourcePath: 'v.txt', targetPath: `${dir}/no/such/dir/x` } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "'targetPath' directory not allowed");
    assert.ok(bad.headers.has('x-invalid-path'));
  });

  void it('download: 117 with a URL served without a token, Range honoured, tampering refused, invalidate', async () => {
    const content = '0123456789abcdefghij';
    await uploadFile(dir, 'down.txt', content);
    const r = await v1('/storage/xfer-external/download', { method: 'POST', form: { sourcePath: `${dir}/down.txt` } });
    assert.equal(r.status, 201, r.text);
    const task = await waitTask(r.body.task_id as string);
    assert.equal(task.status, '117', JSON.stringify(task.data));
    assert.equal(task.description, 'Upload from filesystem to Object Storage has finished succesfully');
    assert.equal(task.data.source, `${dir}/down.txt`);
    const url = task.data.url as string;
    const whole = await fetch(url);
    assert.equal(whole.status, 200);
    assert.equal(await whole.text(), content);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(content.length));
    const part = await fetch(url, { headers: { range: 'bytes=5-9' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 5-9/${content.length}`);
    assert.equal(await part.text(), '56789');
    const tail = await fetch(url, { headers: { range: 'bytes=-3' } });
    assert.equal(await tail.text(), 'hij');
    const u = new URL(url);
    u.searchParams.set('X-Amz-Expires', '999999999');
    const tampered = await fetch(u);
    assert.equal(tampered.status, 403);
    assert.match(await tampered.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
    const inv = await v1('/storage/xfer-external/invalidate', { method: 'POST', machine: null, headers: { 'x-task-id': r.body.task_id as string } });
    assert.equal(inv.status, 201);
    assert.deepEqual(inv.body, { success: 'URL invalidated successfully' });
    assert.equal((await fetch(url)).status, 404);
    const missing = await v1('/storage/xfer-external/invalidate', { method: 'POST', machine: null });
    assert.deepEqual([missing.status, missing.body.error], [400, 'Header X-Task-Id missing']);
  });

  void it('repeated downloads all stage the whole file (no output lost before the store reads it)', async () => {
    const content = 'x'.repeat(100_000);
    await uploadFile(dir, 'again.txt', content);
    for (let i = 0; i < 6; i++) {
      const task = await taskOf('/storage/xfer-external/download', { method: 'POST', form: { sourcePath: `${dir}/again.txt` } }, 201);
      assert.equal(task.status, '117');
      assert.equal((await (await fetch(task.data.url as string)).text()).length, content.length, `round ${i}`);
    }
  });

  void it('download of a missing file or a folder is 400 sourcePath error + header', async () => {
    const missing = await v1('/storage/xfer-external/download', { method: 'POST', form: { sourcePath: `${dir}/none.txt` } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.description, 'sourcePath error');
    assert.ok(missing.headers.has('x-invalid-path'));
    const folder = await v1('/storage/xfer-external/download', { method: 'POST', form: { sourcePath: dir } });
    assert.equal(folder.status, 400);
    assert.ok(folder.headers.has('x-a-directory'));
  });

  void it('an expired URL is refused with 403 AccessDenied', { skip: gatewayOnly() }, async () => {
    const g = gw();
    const signer = Signer.load(join(g.stateDir ?? '', 'staging'));
    const origin = new URL(g.admin ?? '').origin;
    const url = signer.presignUrl('GET', origin, g.user ?? 'alice', 'some-task/file.txt', 60, {}, new Date(Date.now() - 3600_000));
    const r = await fetch(url);
    assert.equal(r.status, 403);
    assert.match(await r.text(), /<Code>AccessDenied<\/Code><Message>Request has expired/);
  });

  void it('a file too large for the staging area ends the download at 118', { skip: gatewayOnly() }, async () => {
    // A sparse file: 6 GiB long, no disk used; larger than STORAGE_MAX_FILE_SIZE (5120 MB).
    const path = `${dir}/huge.bin`;
    const fd = openSync(path, 'w', 0o644);
    try {
      ftruncateSync(fd, 6 * 1024 * 1024 * 1024);
    } finally {
      closeSync(fd);
    }
    try {
      const task = await taskOf('/storage/xfer-external/download', { method: 'POST', form: { sourcePath: path } }, 201);
      assert.equal(task.status, '118');
      assert.match(task.data.error as string, /^Upload to Staging area has failed\. Object: huge\.bin\./);
      assert.equal(task.data.source, path);
    } finally {
      rmSync(path, { force: true });
    }
  });
});
