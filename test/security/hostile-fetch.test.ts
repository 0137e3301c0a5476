/**
 * Fetch from Cluster against a hostile server on loopback (security review 3, findings 8 and 14):
 * the archive it serves holds a decompression bomb, a member under a listed name that is far larger
 * than listed, or is cut off. Only the members that were asked for are written, each bounded by the
 * size the listing gave and streamed to disk; a bomb is refused at its header; a damaged archive is
 * reported with its own error and leaves nothing behind. An honest server cannot be made to serve
 * such archives, so this one is written for the test.
 */
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { c as createTar } from 'tar';
import { createClient, MalformedResponseError, type FirecrestClient } from '../../src/core/index';
import { previewFetch, runFetch } from '../../src/core/sync/fetchFromCluster';
import type { Manifest } from '../../src/core/sync/plan';
import type { ManifestStore } from '../../src/core/sync/syncToCluster';

const REMOTE = '/home/alice/run';
const LISTED = ['r1.txt', 'r2.txt', 'r3.txt', 'r4.txt'];
const CONTENT = (name: string): string => `the ${name} result!\n`.padEnd(20, '.');

let server: Server;
let base = '';
let archive: Buffer = Buffer.alloc(0);
let work = '';

function hostile(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname.endsWith('/ops/ls')) {
      return json(200, { output: LISTED.map((name) => ({ name, type: '-', linkTarget: null, user: 'alice', group: 'alice', permissions: 'rw-r--r--', lastModified: '2026-11-25T10:00:00', size: '20' })) });
    }
    if (url.pathname.endsWith('/ops/compress') || url.pathname.endsWith('/ops/rm')) {
      res.writeHead(204);
      res.end();
      return;
    }
    if (url.pathname.endsWith('/ops/download')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(archive.length) });
      res.end(archive);
      return;
    }
    json(404, { errorType: 'error', message: 'Not Found', causedBy: null, data: null, user: null });
  });
}

/** A gzipped tar of `run/<name>` members, in the order given; `sizes` makes sparse files of that size. */
async function tarOf(files: { name: string; text?: string; size?: number }[]): Promise<Buffer> {
  const dir = mkdtempSync(join(work, 'src-'));
  mkdirSync(join(dir, 'run'));
  for (const f of files) {
    const path = join(dir, 'run', f.name);
    if (f.text !== undefined) writeFileSync(path, f.text);
    else {
      const fd = openSync(path, 'w');
      ftruncateSync(fd, f.size ?? 0);
      closeSync(fd);
    }
  }
  const out = join(dir, 'a.tar.gz');
  await createTar({ gzip: true, file: out, cwd: dir }, files.map((f) => `run/${f.name}`));
  return readFileSync(out);
}

function memoryStore(): ManifestStore {
  let current: Manifest | undefined;
  return { load: async () => current, save: async (m) => { current = m; } };
}

void describe('Fetch from Cluster against a hostile archive', () => {
  let client: FirecrestClient;
  let local = '';
  let privateTmp = '';
  const savedTmp = process.env.TMPDIR;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'f7t-hostile-fetch-'));
    server = hostile();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = await createClient({ profile: { name: 'hostile', url: base, apiVersion: 'v2' }, staticToken: 'not-a-real-token', requestTimeoutMs: 60_000 });
  });
  beforeEach(() => {
    local = mkdtempSync(join(work, 'local-'));
    // The fetch's own temporary folder goes here, so the test sees whether it is left behind.
    privateTmp = mkdtempSync(join(work, 'tmp-'));
    process.env.TMPDIR = privateTmp;
  });
  after(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    await client.dispose();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(work, { recursive: true, force: true });
  });

  const fetchAll = async () => {
    const store = memoryStore();
    const target = { system: 'cluster', remoteRoot: REMOTE, localRoot: local };
    const preview = await previewFetch(client, target, { store, directLimit: 1 << 30 });
    assert.deepEqual(preview.plan.download.map((i) => i.rel), LISTED);
    return runFetch(client, preview, { store, directLimit: 1 << 30 });
  };

  void it('a decompression bomb is refused at its header: nothing of it is written, and nothing is left behind', async () => {
    // 256 MiB of zeros before the wanted files: 20 bytes were asked for per file.
    archive = await tarOf([{ name: 'bomb.bin', size: 256 * 2 ** 20 }, ...LISTED.map((name) => ({ name, text: CONTENT(name) }))]);
    assert.ok(archive.length < 2 * 2 ** 20, `the archive is ${archive.length} bytes`);
    const started = Date.now();
    await assert.rejects(fetchAll(), (e: unknown) => {
      assert.ok(e instanceof MalformedResponseError, String(e));
      assert.match(e.message, /more than was asked for/);
      return true;
    });
    assert.ok(Date.now() - started < 5000, `refused after ${Date.now() - started} ms`);
    assert.deepEqual(readdirSync(local), [], 'nothing written in the folder');
    assert.deepEqual(readdirSync(privateTmp), [], 'the temporary folder is removed');
  });

  void it('a member under a listed name but larger than listed, and members not asked for, are passed over', async () => {
    archive = await tarOf([
      { name: 'r1.txt', size: 512 * 1024 },
      { name: 'unlisted.sh', text: '#!/bin/sh\necho not asked for\n' },
      ...LISTED.slice(1).map((name) => ({ name, text: CONTENT(name) })),
    ]);
    const result = await fetchAll();
    assert.deepEqual(result.fetched.sort(), LISTED.slice(1));
    for (const name of LISTED.slice(1)) assert.equal(readFileSync(join(local, name), 'utf8'), CONTENT(name));
    assert.deepEqual(readdirSync(local).sort(), LISTED.slice(1), 'neither the oversized member nor the unlisted one is here');
    assert.deepEqual(result.skipped.map((s) => s.rel), ['r1.txt']);
    assert.match(result.skipped[0].why, /not in the archive as listed/);
  });

  void it('a cut-off archive is reported with its own error, and leaves neither partial files nor the temporary folder', async () => {
    const whole = await tarOf([...LISTED.map((name) => ({ name, text: CONTENT(name) })), { name: 'z.bin', size: 4 * 2 ** 20 }]);
    archive = whole.subarray(0, Math.floor(whole.length / 2));
    await assert.rejects(fetchAll(), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.doesNotMatch(e.message, /ENOTEMPTY/);
      assert.match(`${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`, /unexpected end of file|Z_BUF_ERROR|TAR_BAD_ARCHIVE|truncated/i);
      return true;
    });
    assert.ok(readdirSync(local).every((f) => !f.includes('.f7t-')), `no partial file: ${readdirSync(local).join(', ')}`);
    for (const f of readdirSync(local)) assert.equal(statSync(join(local, f)).size, 20);
    assert.deepEqual(readdirSync(privateTmp), []);
  });
});
