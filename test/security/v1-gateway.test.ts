/**
 * The gateway's trust boundaries through API v1 (SECURITY.md): a job's `env` form field cannot
 * make the gateway run the user's programs as root, reservations belong to whoever created them,
 * and file names shaped like options are files (issue 15).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localTime, reservationSlot } from '../support/reservationSlot';
import { gatewayOnly } from '../support/target';
import { otherUserAuth } from '../gateway/support-fs';
import { scratch, taskOf, uploadFile, v1, waitTask } from '../gateway/v1-support';
import { sleep } from '../gateway/support';

const skip = gatewayOnly();

/** Polls accounting until the job reached a final state; returns it. */
async function waitJobGone(jobId: string): Promise<string> {
  for (let i = 0; i < 240; i++) {
    const task = await taskOf('/compute/acct', { query: { jobs: jobId } });
    const rows = Array.isArray(task.data) ? (task.data as { state: string; jobid: string }[]) : [];
    const row = rows.find((r) => r.jobid === jobId);
    if (row && !['PENDING', 'RUNNING', 'COMPLETING', 'CONFIGURING'].includes(row.state)) return row.state;
    await sleep(500);
  }
  throw new Error(`job ${jobId} did not finish`);
}

void describe('v1 gateway: a job\'s env cannot reach root', { skip }, () => {
  const markers = `/tmp/f7t-planted-v1-${randomUUID().slice(0, 8)}`;
  let dir = '';
  let remove: () => Promise<void> = async () => undefined;
  before(async () => {
    ({ path: dir, remove } = await scratch('root-path'));
    mkdirSync(markers, { mode: 0o1777 });
    chmodSync(markers, 0o1777);
    for (const name of ['setpriv', 'env', 'timeout', 'sbatch', 'bash', 'dd', 'mkdir']) {
      const real = existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : `/bin/${name}`;
      assert.equal((await uploadFile(dir, name, `#!/bin/sh\nid -u > ${markers}/${name}-$$ 2>/dev/null\nexec ${real} "$@"\n`)).status, 201);
      assert.equal((await v1('/utilities/chmod', { method: 'PUT', form: { targetPath: `${dir}/${name}`, mode: '755' } })).status, 200);
    }
  });
  after(async () => {
    rmSync(markers, { recursive: true, force: true });
    await remove();
  });

  void it('compute/jobs/upload with env PATH=<user folder> first runs the job as the user and nothing planted as root', async () => {
    const out = `${dir}/uid.txt`;
    const r = await v1('/compute/jobs/upload', { method: 'POST', multipart: {
      env: JSON.stringify({ PATH: `${dir}:/usr/bin:/bin` }),
      file: { blob: new Blob([`#!/bin/bash\n#SBATCH --time=00:02:00\nid -u > ${out}\n`]), filename: 'uid.sh' },
    } });
    assert.equal(r.status, 201, r.text);
    const task = await waitTask(r.body.task_id as string);
    assert.equal(task.status, '200', JSON.stringify(task.data));
    await waitJobGone(String(task.data.jobid));
    for (let i = 0; i < 40 && !existsSync(out); i++) await sleep(250);
    assert.notEqual(readFileSync(out, 'utf8').trim(), '0', 'the job ran as the user');
    const asRoot = readdirSync(markers).filter((f) => readFileSync(join(markers, f), 'utf8').trim() === '0');
    assert.deepEqual(asRoot, [], 'no planted program ran as root');
  });
});

void describe('v1 gateway: reservations belong to their creator', { skip }, () => {
  const name = `v1_own_${randomUUID().slice(0, 8)}`;
  after(async () => { await v1(`/reservations/${name}`, { method: 'DELETE' }); });

  void it('another user cannot update or delete it; nobody but an admin changes the site\'s maintenance window', async () => {
    // A random slot: runs side by side share one Slurm node (see reservationSlot).
    const slot = reservationSlot();
    const form = { reservation: name, account: 'proj', numberOfNodes: '1', starttime: localTime(slot), endtime: localTime(slot + 3600_000) };
    const created = await v1('/reservations', { method: 'POST', form });
    assert.equal(created.status, 201, created.text);
    const bob = await otherUserAuth();
    const update = await v1(`/reservations/${name}`, { method: 'PUT', auth: bob, form: { numberOfNodes: '1', starttime: form.starttime, endtime: localTime(slot + 2 * 3600_000) } });
    assert.equal(update.status, 404, update.text);
    assert.ok(update.headers.has('x-permission-denied'));
    assert.equal(update.body.error, 'Error updating reservation');
    const del = await v1(`/reservations/${name}`, { method: 'DELETE', auth: bob });
    assert.equal(del.status, 404, del.text);
    assert.ok(del.headers.has('x-permission-denied'));
    assert.ok(((await v1('/reservations')).body.success as Record<string, string>[]).some((r) => r.reservationname === name), 'still there');
    for (const auth of [bob, undefined]) {
      const maint = await v1('/reservations/maint', { method: 'DELETE', auth });
      assert.equal(maint.status, 404, maint.text);
      assert.ok(maint.headers.has('x-permission-denied'));
    }
    assert.ok(((await v1('/reservations')).body.success as Record<string, string>[]).some((r) => r.reservationname === 'maint'), 'maint is still there');
    const own = await v1(`/reservations/${name}`, { method: 'DELETE' });
    assert.equal(own.status, 204, own.text);
  });
});

void describe('v1 gateway: names shaped like options', { skip }, () => {
  let dir = '';
  let remove: () => Promise<void> = async () => undefined;
  before(async () => { ({ path: dir, remove } = await scratch('dash')); });
  after(async () => { await remove(); });

  void it('compress of a file named -v writes an archive holding it (utilities and xfer-internal)', async () => {
    assert.equal((await uploadFile(dir, '-v', 'dash')).status, 201);
    const sync = await v1('/utilities/compress', { method: 'POST', form: { sourcePath: `${dir}/-v`, targetPath: `${dir}/sync.tar.gz` } });
    assert.equal(sync.status, 201, sync.text);
    const job = await v1('/storage/xfer-internal/compress', { method: 'POST', form: { sourcePath: `${dir}/-v`, targetPath: `${dir}/job.tar.gz` } });
    assert.equal(job.status, 201, job.text);
    const task = await waitTask(job.body.task_id as string);
    assert.equal(task.status, '200', JSON.stringify(task.data));
    await waitJobGone(String(task.data.jobid));
    for (const archive of ['sync.tar.gz', 'job.tar.gz']) {
      const list = await v1('/utilities/ls', { query: { targetPath: `${dir}/${archive}` } });
      assert.equal(list.status, 200, `${archive}: ${list.text}`);
      assert.ok(Number(list.body.output[0].size) > 20, `${archive} holds something`);
    }
  });
});
