/**
 * A download stream that breaks in the middle of the body continues from the byte that reached
 * the disk (`Range: bytes=<n>-`) instead of starting over. The gateway's fault switches drop a
 * connection before or instead of an answer, never halfway through a body, so this one fault comes
 * from a small S3-like server on loopback that cuts its first answer after a given number of bytes.
 * The FirecREST side (ticket, job) is a stub: only the S3 exchange is under test.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { FirecrestApi } from '../../src/core/api';
import { silentLogger } from '../../src/core/logger';
import { S3Http } from '../../src/core/transfer/s3Http';
import { stagedDownload } from '../../src/core/transfer/stagedDownload';
import type { StagingRoutes } from '../../src/core/transfer/v2Staging';

const data = randomBytes(3 * 1024 * 1024 + 17);
const ranges: (string | undefined)[] = [];
let server: Server;
let origin = '';
let dir = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'f7t-range-'));
  server = createServer((req, res) => {
    ranges.push(req.headers.range);
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    res.writeHead(m ? 206 : 200, {
      'content-length': String(data.length - start),
      ...(m ? { 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}),
    });
    if (ranges.length === 1) {
      // First answer: a bit more than a MiB, then the connection is gone.
      res.write(data.subarray(0, 1024 * 1024 + 4321), () => setTimeout(() => res.socket?.destroy(), 50));
      return;
    }
    res.end(data.subarray(start));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

void it('continues a broken download from the byte on disk, and the hash covers the whole file', async () => {
  const staging: StagingRoutes = {
    startUpload: () => Promise.reject(new Error('not used')),
    startDownload: () => Promise.resolve({ transferJob: { jobId: '1', system: 's' }, downloadUrl: `${origin}/bucket/key?X-Amz-Signature=secret` }),
  };
  const api = { waitForTransferJob: () => Promise.resolve(), cancelJob: () => Promise.resolve() } as unknown as FirecrestApi;
  const s3 = new S3Http({ logger: silentLogger });
  const temp = join(dir, 'out.part');
  try {
    const r = await stagedDownload({ api, staging, s3, logger: silentLogger }, 's', '/remote/file', temp, {});
    assert.equal(r.bytes, data.length);
    assert.equal(r.sha256, createHash('sha256').update(data).digest('hex'));
    assert.ok(readFileSync(temp).equals(data), 'byte-identical');
    assert.equal(ranges.length, 2, 'one retry');
    assert.equal(ranges[0], undefined);
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(ranges[1] ?? '')?.[1]);
    assert.ok(resumedAt > 0 && resumedAt <= 1024 * 1024 + 4321, `the retry starts where the disk stopped (${ranges[1]})`);
  } finally {
    await s3.close();
  }
});
