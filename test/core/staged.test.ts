/**
 * Staged transfers through `client.transfers` against the gateway, over real HTTP: a large file
 * round-trips byte-identical in parallel parts, a dropped connection costs one part, cancelling
 * leaves no target file, an interrupted upload resumes with only its missing parts, an expired URL
 * and a checksum mismatch are reported. Parts are made small with the gateway's `maxPartSize`.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, ChecksumMismatchError, InvalidInputError, NotFoundError, type FirecrestClient, type Progress, type StagedUploadState } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, gateway, scratchDir, t } from './support';

const S = t.system;
const MiB = 1024 * 1024;
let c: FirecrestClient;
let dir = '';
let local = '';

async function makeFile(path: string, size: number): Promise<string> {
  const h = createHash('sha256');
  const out = createWriteStream(path);
  for (let at = 0; at < size; at += 8 * MiB) {
    const chunk = randomBytes(Math.min(8 * MiB, size - at));
    h.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
  return h.digest('hex');
}

async function sha(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

const partPuts = async (): Promise<number> => (await gateway.stats()).byRoute['PUT /s3/{bucket}/*'] ?? 0;

let initialTimeout = 5;

before(async () => {
  if (t.gateway) initialTimeout = (await gateway.getSettings()).commandTimeoutSeconds ?? 5;
  c = await client();
  dir = await scratchDir(c, 'staged');
  local = mkdtempSync(join(tmpdir(), 'f7t-staged-'));
});
after(async () => {
  if (t.gateway) {
    await gateway.clearFaults();
    await gateway.settings({ maxPartSize: 2147483648, stagingTtlSeconds: 604800, commandTimeoutSeconds: initialTimeout });
  }
  await c.remove(S, dir).catch(() => undefined);
  await c.dispose();
  rmSync(local, { recursive: true, force: true });
});

/**
 * The part that runs at a site too (FIRECREST_URL): a file above the system's direct limit goes
 * through the staging area both ways and arrives byte-identical, SHA-256 verified. Skipped, saying
 * so, only where the system advertises no staged transfers.
 */
void describe('client.transfers above the direct limit (any deployment with staging)', () => {
  void it('round-trips a file three times the direct limit, verified', async (tc) => {
    const sys = (await c.systems()).find((x) => x.name === S);
    if (!sys?.transferMethod) {
      tc.skip(`${S} advertises no staged transfer method (dataOperation.data_transfer)`);
      return;
    }
    const size = Math.max(3 * sys.maxDirectTransferSize, 3 * MiB) + 12345;
    const src = join(local, 'site-staged.bin');
    const hash = await makeFile(src, size);
    const up = await c.transfers.uploadFile(S, src, `${dir}/site-staged.bin`);
    assert.deepEqual([up.route, up.verified, up.sha256], ['staged', true, hash], up.note);
    const dst = join(local, 'site-staged-back.bin');
    const down = await c.transfers.downloadFile(S, `${dir}/site-staged.bin`, dst);
    assert.deepEqual([down.route, down.verified], ['staged', true], down.note);
    assert.equal(await sha(dst), hash, 'byte-identical after the round trip');
    rmSync(src);
    rmSync(dst);
  });
});

void describe('client.transfers (staged, s3)', { skip: gatewayOnly() }, () => {
  void it('round-trips a 300 MiB file byte-identical in 8 MiB parts, with progress', async () => {
    // sha256sum of 300 MiB on a busy machine can outlast the default 5 s command timeout.
    await gateway.settings({ maxPartSize: 8 * MiB, commandTimeoutSeconds: 60 });
    const src = join(local, 'big.bin');
    const hash = await makeFile(src, 300 * MiB);
    await gateway.resetStats();
    const events: Progress[] = [];
    const up = await c.transfers.uploadFile(S, src, `${dir}/big.bin`, { onProgress: (p) => events.push(p) });
    assert.equal(up.route, 'staged');
    assert.equal(up.sha256, hash);
    assert.equal(up.verified, true, up.note);
    assert.equal(await partPuts(), 38, 'one PUT per part, no more');
    const uploading = events.filter((e) => e.phase === 'uploading' && e.bytesDone !== undefined);
    assert.ok(uploading.length > 2);
    assert.equal(uploading.at(-1)?.partsDone, 38);
    assert.equal(uploading.at(-1)?.partsTotal, 38);
    assert.ok(uploading.some((e) => (e.rate ?? 0) > 0 && e.eta !== undefined), 'rate and ETA are reported');
    rmSync(src);

    const dst = join(local, 'back.bin');
    const down = await c.transfers.downloadFile(S, `${dir}/big.bin`, dst);
    assert.equal(down.route, 'staged');
    assert.equal(down.verified, true, down.note);
    assert.equal(await sha(dst), hash, 'byte-identical after the round trip');
    rmSync(dst);
    await c.remove(S, `${dir}/big.bin`);
    await gateway.settings({ commandTimeoutSeconds: initialTimeout });
  });

  void it('keeps small files on the direct routes', async () => {
    const src = join(local, 'small.txt');
    writeFileSync(src, 'hello staged world\n');
    const up = await c.transfers.uploadFile(S, src, `${dir}/small.txt`);
    assert.deepEqual([up.route, up.verified], ['direct', true]);
    const down = await c.transfers.downloadFile(S, `${dir}/small.txt`, join(local, 'small-back.txt'));
    assert.deepEqual([down.route, down.verified], ['direct', true]);
    assert.equal(await readFile(join(local, 'small-back.txt'), 'utf8'), 'hello staged world\n');
  });

  void it('a connection dropped on a part costs only that part (dropAfter and dropBefore)', async () => {
    await gateway.settings({ maxPartSize: MiB });
    const src = join(local, 'drop.bin');
    const hash = await makeFile(src, 6 * MiB + 123);
    for (const fault of ['dropAfter', 'dropBefore']) {
      await gateway.resetStats();
      await gateway.faults({ [fault]: { next: 1, match: '^PUT /s3/' } });
      const r = await c.transfers.upload(S, src, `${dir}/drop-${fault}.bin`);
      assert.equal(r.sha256, hash);
      assert.equal(r.verified, true);
      assert.equal(await partPuts(), 8, `${fault}: 7 parts + 1 resent`);
    }
    // A download whose stream drops is retried too.
    await gateway.faults({ dropAfter: { next: 1, match: '^GET /s3/' } });
    const down = await c.transfers.download(S, `${dir}/drop-dropAfter.bin`, join(local, 'drop-back.bin'));
    assert.equal(down.sha256, hash);
    await gateway.clearFaults();
  });

  void it('cancelling stops the parts, cancels the transfer job, and no target file appears', async () => {
    await gateway.settings({ maxPartSize: MiB });
    const src = join(local, 'cancel.bin');
    await makeFile(src, 24 * MiB);
    const ac = new AbortController();
    let job = '';
    const p = c.transfers.upload(S, src, `${dir}/cancel.bin`, {
      signal: ac.signal,
      parallelism: 2,
      onState: (s) => {
        job = s.transferJob.jobId;
        if (s.done.length >= 2) ac.abort();
      },
    });
    await assert.rejects(p, CancelledError);
    const state = (await c.waitForJob(S, job, { overallTimeoutMs: 60_000 })).state;
    assert.match(state, /CANCELLED/);
    await assert.rejects(c.stat(S, `${dir}/cancel.bin`), NotFoundError);
  });

  void it('resumes an interrupted upload with only the missing parts', async () => {
    await gateway.settings({ maxPartSize: MiB });
    const src = join(local, 'resume.bin');
    const hash = await makeFile(src, 8 * MiB);
    let saved: StagedUploadState | undefined;
    // A refused part (400 is not retried) interrupts the upload without cancelling it.
    await gateway.faults({ seed: 5, error: { rate: 0.3, statuses: [400], match: '^PUT /s3/' } });
    await assert.rejects(c.transfers.upload(S, src, `${dir}/resume.bin`, { parallelism: 1, attempts: 1, onState: (s) => { saved = s; } }), InvalidInputError);
    await gateway.clearFaults();
    assert.ok(saved && !saved.completed);
    const doneBefore = saved.done.length;
    assert.ok(doneBefore < 8);
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(saved)), 'the state is plain JSON');
    await gateway.resetStats();
    const r = await c.transfers.upload(S, src, `${dir}/resume.bin`, { resume: JSON.parse(JSON.stringify(saved)) as StagedUploadState });
    assert.equal(await partPuts(), 8 - doneBefore, 'finished parts are never sent again');
    assert.equal(r.sha256, hash);
    assert.equal(r.verified, true);
  });

  void it('reports a checksum mismatch, both ways, naming both hashes; a download leaves the destination untouched', async () => {
    await gateway.settings({ maxPartSize: MiB });
    const src = join(local, 'mismatch.bin');
    const hash = await makeFile(src, 3 * MiB);
    const remote = `${dir}/mismatch.bin`;
    // The gateway's file systems are this machine's: a write right before the server hashes the
    // file stands in for corruption between the staging area and the target.
    const tamper = (p: Progress): void => { if (p.phase === 'verifying') writeFileSync(remote, 'not what was sent'); };
    await assert.rejects(c.transfers.upload(S, src, remote, { onProgress: tamper }), (e: unknown) =>
      e instanceof ChecksumMismatchError && e.localSha256 === hash && e.remoteSha256 !== hash && e.message.includes(hash) && e.message.includes(e.remoteSha256));
    await c.transfers.upload(S, src, remote);
    const dst = join(local, 'mismatch-dst.txt');
    writeFileSync(dst, 'old content');
    // A download asks for the server's checksum as it starts: the damage is done on the way, by
    // the gateway's corruptBody switch (one staged byte flipped), not to the file.
    await gateway.faults({ corruptBody: { next: 1, match: '^GET /s3/' } });
    try {
      await assert.rejects(c.transfers.download(S, remote, dst), ChecksumMismatchError);
    } finally {
      await gateway.clearFaults();
    }
    assert.equal(await readFile(dst, 'utf8'), 'old content', 'the old destination stays');
    assert.deepEqual(readdirSync(local).filter((f) => f.includes('f7t-part')), [], 'no temporary file is left');
  });

  void it('refuses a local destination in a missing folder or on a folder, typed, before staging anything', async () => {
    const src = join(local, 'dest-check.bin');
    await makeFile(src, 3 * MiB);
    const remote = `${dir}/dest-check.bin`;
    await c.transfers.upload(S, src, remote);
    await assert.rejects(c.transfers.download(S, remote, join(local, 'no-such-folder', 'x.bin')), (e: unknown) => e instanceof InvalidInputError && /does not exist/.test(e.message));
    await assert.rejects(c.transfers.download(S, remote, local), (e: unknown) => e instanceof InvalidInputError && /is a directory/.test(e.message));
  });

  void it('a resume whose URLs expired starts a fresh staged upload; the staging area refuses the old URLs', async () => {
    await gateway.settings({ maxPartSize: MiB, stagingTtlSeconds: 1 });
    const src = join(local, 'late.bin');
    await makeFile(src, 2 * MiB);
    let saved: StagedUploadState | undefined;
    await gateway.faults({ error: { next: 1, statuses: [400], match: '^PUT /s3/' } });
    await assert.rejects(c.transfers.upload(S, src, `${dir}/late.bin`, { parallelism: 1, attempts: 1, onState: (s) => { saved = s; } }));
    await gateway.clearFaults();
    await gateway.settings({ stagingTtlSeconds: 604800 });
    assert.ok(saved?.expiresAt);
    await new Promise((r) => setTimeout(r, 2100));
    const refused = await fetch(saved.partsUploadUrls[1], { method: 'PUT', body: 'x' });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /expired/);
    const again = await c.transfers.upload(S, src, `${dir}/late.bin`, { resume: saved });
    assert.match(again.restarted ?? '', /URLs have expired/);
    assert.equal(again.verified, true, again.note);
  });
});
