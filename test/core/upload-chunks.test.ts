/**
 * The staged upload's send path (`UploadSource.chunks`: two reused buffers per part, pulled by
 * undici): the bytes of any range arrive intact, the file is closed however the part ends (done,
 * ended early, refused, cancelled), and a file that shrinks while it is sent fails typed. Runs
 * against the gateway over real HTTP; the fault switches refuse and drop parts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, InvalidInputError, type FirecrestClient } from '../../src/core/index';
import { fileSource } from '../../src/core/transfer/uploadSource';
import { gatewayOnly } from '../support/target';
import { client, gateway, scratchDir, t } from './support';

const S = t.system;
const MiB = 1024 * 1024;
let c: FirecrestClient;
let dir = '';
let local = '';
let src = '';
let bytes: Buffer;

/** Open descriptors of this process on `path`. */
const openOn = (path: string): number => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
}).length;

/** Lets closes that were started finish (FileHandle.close is asynchronous). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

before(async () => {
  c = await client();
  dir = await scratchDir(c, 'upload-chunks');
  local = mkdtempSync(join(tmpdir(), 'f7t-upload-chunks-'));
  src = join(local, 'src.bin');
  // Not a multiple of the 1 MiB chunk, so every range ends in a short chunk somewhere.
  bytes = randomBytes(5 * MiB + 12345);
  writeFileSync(src, bytes);
});
after(async () => {
  if (t.gateway) {
    await gateway.clearFaults();
    await gateway.settings({ maxPartSize: 2147483648 });
  }
  await c.remove(S, dir).catch(() => undefined);
  await c.dispose();
  rmSync(local, { recursive: true, force: true });
});

void describe('UploadSource.chunks', () => {
  void it('yields exactly the bytes of a range, counted, and closes the file at the end', async () => {
    const source = await fileSource(src);
    for (const [start, end] of [[0, bytes.length], [7, 3 * MiB + 1], [2 * MiB, 2 * MiB + 10], [MiB, MiB]]) {
      const got: Buffer[] = [];
      let counted = 0;
      // A chunk is valid until the next but one is asked for: copy it, as a socket would.
      for await (const chunk of source.chunks(start, end, (n) => (counted += n))) got.push(Buffer.from(chunk));
      assert.ok(got.every((g) => g.length <= MiB));
      assert.deepEqual(Buffer.concat(got), bytes.subarray(start, end), `range ${start}-${end}`);
      assert.equal(counted, end - start);
    }
    await settle();
    assert.equal(openOn(src), 0);
  });

  void it('ended early (return), the file is closed', async () => {
    const source = await fileSource(src);
    const it = source.chunks(0, bytes.length);
    await it.next();
    assert.equal(openOn(src), 1);
    await it.return(undefined);
    assert.equal(openOn(src), 0);
  });

  void it('a file that shrinks while it is read fails typed, naming the byte, and is closed', async () => {
    const path = join(local, 'shrinks.bin');
    writeFileSync(path, bytes);
    const source = await fileSource(path);
    const it = source.chunks(0, bytes.length);
    await it.next();
    truncateSync(path, MiB + 5);
    await assert.rejects(async () => {
      for (;;) if ((await it.next()).done) break;
    }, (e: unknown) => e instanceof InvalidInputError && /ended at byte 1048581/.test(e.message));
    await settle();
    assert.equal(openOn(path), 0);
  });
});

void describe('staged upload send path', { skip: gatewayOnly() }, () => {
  void it('parts of an odd-sized file arrive intact; no descriptor is left on the source', async () => {
    await gateway.settings({ maxPartSize: 2 * MiB });
    const r = await c.transfers.upload(S, src, `${dir}/odd.bin`, { parallelism: 3 });
    assert.ok(r.verified);
    const back = join(local, 'back.bin');
    await c.transfers.download(S, `${dir}/odd.bin`, back);
    assert.deepEqual(await readFile(back), bytes);
    await settle();
    assert.equal(openOn(src), 0);
  });

  void it('a refused part (500, 5 times) fails typed, leaves no descriptor on the source, and no transfer job waiting', async () => {
    await gateway.settings({ maxPartSize: 2 * MiB });
    await gateway.faults({ error: { next: 5, statuses: [500], match: '^PUT /s3/' } });
    let jobId: string | undefined;
    await assert.rejects(c.transfers.upload(S, src, `${dir}/refused.bin`, { parallelism: 1, onState: (s) => { jobId = s.transferJob.jobId; } }), (e: unknown) => e instanceof Error && /500/.test(e.message));
    await gateway.clearFaults();
    // No part was accepted, so nothing can be resumed: the job that would wait for the object is gone.
    assert.ok(jobId, 'a transfer job was started');
    assert.match((await c.waitForJob(S, jobId, { overallTimeoutMs: 60_000 })).state, /CANCELLED/);
    await settle();
    assert.equal(openOn(src), 0);
  });

  void it('dropped connections cost only their part; cancelling mid-part closes the file', async () => {
    await gateway.settings({ maxPartSize: 2 * MiB });
    await gateway.faults({ dropAfter: { next: 2, match: '^PUT /s3/' } });
    assert.ok((await c.transfers.upload(S, src, `${dir}/dropped.bin`, { parallelism: 3 })).verified);
    await gateway.clearFaults();
    await settle();
    assert.equal(openOn(src), 0);

    // Slow parts, cancelled while they are being sent.
    await gateway.faults({ latency: { rate: 1, minMs: 2000, ms: 2000, match: '^PUT /s3/' } });
    const ac = new AbortController();
    const p = c.transfers.upload(S, src, `${dir}/cancelled.bin`, { parallelism: 3, signal: ac.signal, onProgress: (e) => { if (e.phase === 'uploading') ac.abort(); } });
    await assert.rejects(p, CancelledError);
    await gateway.clearFaults();
    await settle();
    assert.equal(openOn(src), 0);
  });
});
