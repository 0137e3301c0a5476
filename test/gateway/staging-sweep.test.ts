/**
 * The gateway sweeps its staging store: a multipart upload nobody completed and an object staged
 * for a download nobody fetched are removed once their presigned URLs have expired
 * (`stagingTtlSeconds`, shortened here at run time). Gateway only: it looks into the state dir.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, api, gw, sleep, t } from './support';
import { scratchDir, transfer, upload, waitForJob } from './support-fs';

const skip = gatewayOnly();
let dir = '';
let cleanup: () => Promise<void> = async () => undefined;

/** Files below `path`, recursively (none when it does not exist). */
function filesBelow(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function until(what: string, check: () => boolean): Promise<void> {
  // Generous: the sweep runs every second with a 2 s lifetime, but the machine may be loaded.
  for (let i = 0; i < 120; i++) {
    if (check()) return;
    await sleep(500);
  }
  assert.fail(`${what} still there after 60 s`);
}

void describe('staging store sweep', { skip }, () => {
  before(async () => {
    ({ path: dir, remove: cleanup } = await scratchDir('sweep'));
  });
  after(async () => {
    await admin('PUT', '/settings', { stagingTtlSeconds: 604800 });
    await cleanup();
  });

  void it('removes an abandoned multipart upload and an unfetched download object after the URL lifetime', async () => {
    const staging = join(gw().stateDir ?? '', 'staging');
    // Opened with the default lifetime: one part sent, never completed.
    const up = await transfer('upload', { method: 'POST', json: { path: `${dir}/abandoned.bin`, transferDirectives: { transferMethod: 's3', fileSize: 10 } } });
    assert.equal(up.status, 201, up.text);
    const uploadId = new URL(up.body.transferDirectives.partsUploadUrls[0] as string).searchParams.get('uploadId') ?? '';
    const put = await fetch(up.body.transferDirectives.partsUploadUrls[0] as string, { method: 'PUT', body: Buffer.alloc(10, 1) });
    assert.equal(put.status, 200);
    await api(`/compute/${t.system}/jobs/${up.body.transferJob.jobId as string}`, { method: 'DELETE' });
    const partDir = join(staging, 'multipart', uploadId);
    assert.ok(existsSync(join(partDir, 'part-1.json')) && existsSync(join(partDir, 'data')), 'the part is on disk');

    // A download staged by its job, never fetched.
    assert.equal((await upload(dir, 'staged.bin', Buffer.alloc(1000, 2))).status, 204);
    const down = await transfer('download', { method: 'POST', json: { sourcePath: `${dir}/staged.bin`, transferDirectives: { transferMethod: 's3' } } });
    assert.equal(down.status, 201, down.text);
    assert.match(await waitForJob(down.body.transferJob.jobId as string), /COMPLETED/);
    const key = decodeURIComponent(new URL(down.body.transferDirectives.downloadUrl as string).pathname.replace(/^\/s3\//, ''));
    const object = join(staging, 'objects', ...key.split('/'));
    assert.ok(existsSync(object), 'the staged object is on disk');
    assert.equal((await fetch(down.body.transferDirectives.downloadUrl as string, { method: 'HEAD' })).status, 200);

    // Still valid URLs: a sweep keeps both.
    await sleep(2500);
    assert.ok(existsSync(partDir) && existsSync(object), 'nothing is removed before its URLs expire');

    assert.equal((await admin('PUT', '/settings', { stagingTtlSeconds: 2 })).status, 200);
    await until('the abandoned upload', () => !existsSync(partDir));
    await until('the staged object', () => !existsSync(object));
    assert.ok(!existsSync(join(object, '..')), 'its task folder went with it');
    assert.deepEqual(filesBelow(join(staging, 'tmp')), []);
    // Signed under the old lifetime, the URL itself is still valid: the object is simply gone.
    assert.equal((await fetch(down.body.transferDirectives.downloadUrl as string)).status, 404);
  });
});
