/**
 * Staged transfers (§3.5, §4.3): transfer/upload hands out presigned part URLs that take PUTs
 * (ETag = quoted MD5) and a CompleteMultipartUpload URL that checks the XML like S3; the ingress
 * job then moves the object to the target. transfer/download stages the file and serves it with
 * Range. Presigned URLs need no token and are refused once expired or altered. Raw HTTP only.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, api, sleep, t, token, type Json, type Reply } from './support';
import { ops, scratchDir, transfer, viewText, waitForJob } from './support-fs';

const PART = 1024 * 1024;
const md5 = (b: Uint8Array): string => `"${createHash('md5').update(b).digest('hex')}"`;
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const onGateway = !gatewayOnly();

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;
let partSize = PART;
const ingressJobs: string[] = [];

before(async () => {
  ({ path: dir, remove: cleanup } = await scratchDir('staged'));
  if (onGateway) assert.equal((await admin('PUT', '/settings', { maxPartSize: PART })).status, 200);
  else partSize = Number((await api('/status/systems')).body.systems.find((s: Json) => s.name === t.system).dataOperation.data_transfer.multipart.max_part_size);
});
after(async () => {
  // An ingress job whose upload a failed test never completed would wait for a day: cancel them all.
  for (const id of ingressJobs) await api(`/compute/${t.system}/jobs/${id}`, { method: 'DELETE' });
  if (onGateway) await admin('PUT', '/settings', { maxPartSize: 2147483648, stagingTtlSeconds: 604800 });
  await cleanup();
});

function completeXml(parts: { n: number; etag: string }[]): string {
  const body = parts.map((p) => `<Part><ETag>${p.etag}</ETag><PartNumber>${p.n}</PartNumber></Part>`).join('');
  return `<?xml version='1.0' encoding='utf-8'?>\n<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${body}</CompleteMultipartUpload>`;
}

async function startUpload(path: string, fileSize: number): Promise<Reply> {
  const r = await transfer('upload', { method: 'POST', json: { path, transferDirectives: { transferMethod: 's3', fileSize } } });
  if (r.status === 201) ingressJobs.push(r.body.transferJob.jobId as string);
  return r;
}

async function putParts(urls: string[], data: Buffer, size: number): Promise<{ n: number; etag: string }[]> {
  return Promise.all(urls.map(async (url, i) => {
    const part = data.subarray(i * size, Math.min((i + 1) * size, data.length));
    const res = await fetch(url, { method: 'PUT', body: part, headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(res.status, 200, await res.text());
    const etag = res.headers.get('etag') ?? '';
    assert.equal(etag, md5(part), 'the ETag is the quoted MD5 of the part');
    return { n: i + 1, etag };
  }));
}

const s3Code = (text: string): string => /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? text;

async function finishedLogs(r: Reply): Promise<{ state: string; out: string; err: string }> {
  const job = r.body.transferJob as { jobId: string; logs: { outputLog: string; errorLog: string } };
  const state = await waitForJob(job.jobId, 120_000);
  const out = await viewText(job.logs.outputLog);
  const err = await viewText(job.logs.errorLog);
  await ops('rm', { method: 'DELETE', query: { path: job.logs.outputLog } });
  await ops('rm', { method: 'DELETE', query: { path: job.logs.errorLog } });
  return { state, out, err };
}

void describe('staged upload (s3 multipart)', () => {
  void it('round-trips a multi-part file: part ETags, completion, ingress job, target content', async () => {
    // Several parts on the gateway (1 MiB parts); one small part against a real deployment.
    const data = randomBytes(partSize > 8 * PART ? 3000 : Math.floor(2.5 * partSize));
    const target = `${dir}/up.bin`;
    const r = await startUpload(target, data.length);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['transferDirectives', 'transferJob']);
    const d = r.body.transferDirectives;
    assert.equal(d.transferMethod, 's3');
    assert.equal(d.maxPartSize, partSize);
    assert.equal(d.partsUploadUrls.length, Math.ceil(data.length / partSize));
    for (const u of [...d.partsUploadUrls, d.completeUploadUrl] as string[]) assert.doesNotMatch(u, /[Bb]earer|access_token/);
    const parts = await putParts(d.partsUploadUrls as string[], data, partSize);
    const done = await fetch(d.completeUploadUrl as string, { method: 'POST', body: completeXml(parts) });
    assert.equal(done.status, 200, await done.text());
    const { state, out, err } = await finishedLogs(r);
    assert.equal(state, 'COMPLETED', err);
    assert.match(out, /File was successfully downloaded \(size: [\d.]+MB\)/);
    const sum = await ops('checksum', { query: { path: target } });
    assert.equal(sum.body.output.checksum, sha256(data));
    // Completing twice: the upload is gone.
    const again = await fetch(d.completeUploadUrl as string, { method: 'POST', body: completeXml(parts) });
    assert.equal(again.status, 404);
    assert.equal(s3Code(await again.text()), 'NoSuchUpload');
  });

  void it('keeps the last copy of a part sent twice, and completes with a selection of parts like S3', { skip: gatewayOnly() }, async () => {
    // Parts sent twice (the second copy differs) and completed whole: the object is the new copy.
    const data = randomBytes(3 * PART - 7);
    const r = await startUpload(`${dir}/resent.bin`, data.length);
    assert.equal(r.status, 201, r.text);
    const d = r.body.transferDirectives;
    await putParts(d.partsUploadUrls as string[], randomBytes(data.length), PART);
    const parts = await putParts(d.partsUploadUrls as string[], data, PART);
    const done = await fetch(d.completeUploadUrl as string, { method: 'POST', body: completeXml(parts) });
    assert.equal(done.status, 200, await done.text());
    const { state, err } = await finishedLogs(r);
    assert.equal(state, 'COMPLETED', err);
    assert.equal((await ops('checksum', { query: { path: `${dir}/resent.bin` } })).body.output.checksum, sha256(data));

    // Parts 1 and 3 only: S3 joins the parts named, in order, with the ETag of those two.
    const r2 = await startUpload(`${dir}/selected.bin`, data.length);
    assert.equal(r2.status, 201, r2.text);
    const d2 = r2.body.transferDirectives;
    const all = await putParts(d2.partsUploadUrls as string[], data, PART);
    const res = await fetch(d2.completeUploadUrl as string, { method: 'POST', body: completeXml([all[0], all[2]]) });
    const xml = await res.text();
    assert.equal(res.status, 200, xml);
    const binary = (etag: string): Buffer => Buffer.from(etag.replace(/"/g, ''), 'hex');
    const expected = `"${createHash('md5').update(Buffer.concat([binary(all[0].etag), binary(all[2].etag)])).digest('hex')}-2"`;
    assert.equal(/<ETag>([^<]+)<\/ETag>/.exec(xml)?.[1].replace(/&quot;|&#34;/g, '"'), expected);
    const second = await finishedLogs(r2);
    assert.equal(second.state, 'COMPLETED', second.err);
    const joined = Buffer.concat([data.subarray(0, PART), data.subarray(2 * PART)]);
    assert.equal((await ops('checksum', { query: { path: `${dir}/selected.bin` } })).body.output.checksum, sha256(joined));
  });

  void it('refuses a forged ETag, parts out of order and malformed XML like S3 (400)', { skip: gatewayOnly() }, async () => {
    const data = randomBytes(2 * PART + 10);
    const r = await startUpload(`${dir}/forged.bin`, data.length);
    assert.equal(r.status, 201, r.text);
    const d = r.body.transferDirectives;
    const parts = await putParts(d.partsUploadUrls as string[], data, PART);
    const cases: [string, string][] = [
      [completeXml([parts[0], { n: 2, etag: '"00000000000000000000000000000000"' }, parts[2]]), 'InvalidPart'],
      [completeXml([parts[0], { n: 2, etag: '' }, parts[2]]), 'InvalidPart'],
      [completeXml([parts[1], parts[0], parts[2]]), 'InvalidPartOrder'],
      ['<CompleteMultipartUpload><Part><ETag>x</ETag></Part>', 'MalformedXML'],
      ['', 'MalformedXML'],
    ];
    for (const [xml, code] of cases) {
      const res = await fetch(d.completeUploadUrl as string, { method: 'POST', body: xml });
      assert.equal(res.status, 400);
      assert.equal(s3Code(await res.text()), code);
    }
    await api(`/compute/${t.system}/jobs/${r.body.transferJob.jobId as string}`, { method: 'DELETE' });
    const { state } = await finishedLogs(r);
    assert.match(state, /^CANCELLED/);
    assert.equal((await ops('stat', { query: { path: `${dir}/forged.bin` } })).status, 404, 'no target file appears');
  });

  void it('fails the ingress job with exit 3 when the target is a directory', async () => {
    const r = await startUpload(dir, 100);
    assert.equal(r.status, 201, r.text);
    const { state, err } = await finishedLogs(r);
    assert.match(state, /FAILED/);
    assert.match(err, /Is a directory/);
  });

  void it('answers 400 for another transfer method and needs transferDirectives', async () => {
    const r = await transfer('upload', { method: 'POST', json: { path: `${dir}/x`, transfer_directives: { transfer_method: 'streamer', file_size: 1 } } });
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'Requested transfer method is not available.');
    const missing = await transfer('upload', { method: 'POST', json: { path: `${dir}/x` } });
    assert.equal(missing.status, 400);
  });
});

void describe('staged download (s3)', () => {
  void it('stages the file with a job, then serves it with Range', async () => {
    const data = randomBytes(300_000);
    const path = `${dir}/down.bin`;
    const up = await fetch(`${t.url}/filesystem/${t.system}/ops/upload?path=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}` },
      body: (() => { const f = new FormData(); f.append('file', new Blob([data]), 'down.bin'); return f; })(),
    });
    assert.equal(up.status, 204, await up.text());
    const r = await transfer('download', { method: 'POST', json: { source_path: path, transfer_directives: { transferMethod: 's3' } } });
    assert.equal(r.status, 201, r.text);
    const url = r.body.transferDirectives.downloadUrl as string;
    assert.deepEqual(Object.keys(r.body.transferDirectives).sort(), ['downloadUrl', 'transferMethod']);
    const { state, out } = await finishedLogs(r);
    assert.equal(state, 'COMPLETED');
    assert.match(out, /\[INFO\] Multipart file upload successfully completed/);
    const all = await fetch(url);
    assert.equal(all.status, 200);
    assert.equal(sha256(Buffer.from(await all.arrayBuffer())), sha256(data));
    const part = await fetch(url, { headers: { range: 'bytes=1000-' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 1000-${data.length - 1}/${data.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), data.subarray(1000));
  });

  void it('answers 404 for a missing source; a presigned URL with a changed query is refused', { skip: gatewayOnly() }, async () => {
    const missing = await transfer('download', { method: 'POST', json: { sourcePath: `${dir}/nope`, transferDirectives: { transferMethod: 's3' } } });
    assert.equal(missing.status, 404, missing.text);
    const r = await startUpload(`${dir}/never.bin`, 10);
    const object = new URL(r.body.transferDirectives.completeUploadUrl as string);
    // Dropping the signed uploadId turns the completion URL into an unsigned GET of the object.
    object.searchParams.delete('uploadId');
    const res = await fetch(object);
    assert.equal(res.status, 403);
    await api(`/compute/${t.system}/jobs/${r.body.transferJob.jobId as string}`, { method: 'DELETE' });
    await finishedLogs(r);
  });
});

void describe('presigned URLs', { skip: gatewayOnly() }, () => {
  void it('refuses an expired URL (403 AccessDenied) and an altered expiry (403 SignatureDoesNotMatch)', async () => {
    assert.equal((await admin('PUT', '/settings', { stagingTtlSeconds: 1 })).status, 200);
    let r: Reply;
    try {
      r = await startUpload(`${dir}/late.bin`, 10);
      assert.equal(r.status, 201, r.text);
      const systems = await api('/status/systems');
      assert.equal(systems.body.systems.find((s: Json) => s.name === t.system).dataOperation.data_transfer.ttl, 1);
    } finally {
      await admin('PUT', '/settings', { stagingTtlSeconds: 604800 });
    }
    const url = new URL(r.body.transferDirectives.partsUploadUrls[0] as string);
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Expires', '604800');
    const t1 = await fetch(tampered, { method: 'PUT', body: 'x' });
    assert.equal(t1.status, 403);
    assert.equal(s3Code(await t1.text()), 'SignatureDoesNotMatch');
    await sleep(2100);
    const late = await fetch(url, { method: 'PUT', body: 'x' });
    assert.equal(late.status, 403);
    const text = await late.text();
    assert.equal(s3Code(text), 'AccessDenied');
    assert.match(text, /Request has expired/);
    const { state, err } = await finishedLogs(r);
    assert.match(state, /FAILED/, 'the ingress job gives up once its own URL expired');
    assert.match(err, /refused|did not appear/);
  });

  void it('shows maxPartSize as multipart.max_part_size', async () => {
    const systems = await api('/status/systems');
    assert.equal(systems.body.systems.find((s: Json) => s.name === t.system).dataOperation.data_transfer.multipart.max_part_size, PART);
  });
});
