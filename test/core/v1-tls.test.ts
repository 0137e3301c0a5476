/**
 * The v1 staged upload's form goes through the client's S3 pools, so a profile's CA file applies to
 * it as to v2's parts: a staging area behind a self-signed certificate (a local HTTPS server, the
 * site-CA case produced for real) is refused without the CA and reached with it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/core/index';
import { S3Http } from '../../src/core/transfer/s3Http';

void describe('v1 upload form over TLS (S3Http.sendWhole)', () => {
  let dir: string;
  let server: Server;
  let url: string;
  const got: { contentType?: string; bytes: number }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'f7t-v1-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        got.push({ contentType: req.headers['content-type'], bytes });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/s3/alice?sig=x`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const body = async function* (): AsyncGenerator<Uint8Array> {
    yield new Uint8Array(1000);
    yield new Uint8Array(24);
  };

  void it('is refused without the site CA and not retried as a network glitch', async () => {
    const s3 = new S3Http({ logger: silentLogger });
    try {
      await assert.rejects(s3.sendWhole('POST', url, 'multipart/form-data; boundary=b', body(), 1024, undefined, 'upload'), (e: Error & { retryable?: boolean }) => /certificate|self.signed/i.test(e.message) && e.retryable === false);
    } finally {
      await s3.close();
    }
  });

  void it('reaches the staging area with caFile, streaming exactly Content-Length bytes', async () => {
    const s3 = new S3Http({ logger: silentLogger, caFile: join(dir, 'cert.pem') });
    try {
      await s3.sendWhole('POST', url, 'multipart/form-data; boundary=b', body(), 1024, undefined, 'upload');
      assert.deepEqual(got.at(-1), { contentType: 'multipart/form-data; boundary=b', bytes: 1024 });
    } finally {
      await s3.close();
    }
  });
});
