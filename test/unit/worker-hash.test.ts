/**
 * WorkerHash and FileSink: the SHA-256 computed on a worker thread from handed-over buffers equals
 * node:crypto's over the same bytes; a download's file gets every byte, in order, in any chunk
 * sizes, with a bounded number of buffers (write waits while all are busy); an aborted sink keeps
 * what it received, and a sink opened at an offset continues the file there.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileSink, type BufferHash } from '../../src/core/transfer/fileSink';
import { WorkerHash } from '../../src/core/transfer/workerHash';

void describe('WorkerHash', () => {
  void it('hashes the handed-over buffers in order and hands each back, the same memory', async () => {
    const w = new WorkerHash();
    try {
      const h = createHash('sha256');
      let buf: Uint8Array = new Uint8Array(64 << 10);
      for (let i = 0; i < 200; i++) {
        const n = 1 + ((i * 7919) % buf.length);
        buf.set(randomBytes(n));
        h.update(buf.subarray(0, n));
        const sent = buf;
        buf = await w.update(buf, n);
        assert.equal(sent.byteLength, 0, 'transferred, not copied');
        assert.equal(buf.byteLength, 64 << 10, 'handed back whole');
      }
      // A view over part of a larger buffer is copied (the caller keeps its memory).
      const big = randomBytes(1000);
      h.update(big.subarray(10, 20));
      await w.update(big.subarray(10, 20));
      assert.equal(big.byteLength, 1000);
      assert.equal(await w.digest(), h.digest('hex'));
      assert.equal(await w.digest(), createHash('sha256').digest('hex'), 'a digest starts afresh');
    } finally {
      await w.close();
      await w.close();
    }
    await assert.rejects(w.digest(), /closed/);
  });
});

void describe('FileSink', () => {
  const dir = mkdtempSync(join(tmpdir(), 'f7t-sink-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

  void it('writes every byte in order and hashes them, with at most `buffers` buffers in use', async () => {
    const data = randomBytes(3_000_000);
    const file = join(dir, 'a.bin');
    const h = createHash('sha256');
    let held = 0;
    let most = 0;
    const seen = new Set<Uint8Array>();
    let release: (() => void) | undefined;
    // A hash that holds each buffer until told: the sink must stop taking bytes after 3 buffers.
    const slow: BufferHash = {
      update: async (b, n) => {
        held++;
        most = Math.max(most, held);
        seen.add(b);
        await new Promise<void>((r) => { release = r; });
        h.update(b.subarray(0, n));
        held--;
        return b;
      },
    };
    const sink = await FileSink.open(file, 0, slow, { bufferBytes: 256 << 10, buffers: 3 });
    let waited = 0;
    const feeding = (async () => {
      for (let at = 0; at < data.length;) {
        const n = Math.min(data.length - at, 1 + ((at * 31) % 90_000));
        const wait = sink.write(data.subarray(at, at + n));
        if (wait) { waited++; await wait; }
        at += n;
      }
      await sink.end();
    })();
    let done = false;
    void feeding.then(() => { done = true; });
    while (!done) {
      await new Promise((r) => setTimeout(r, 1));
      const r = release;
      release = undefined;
      r?.();
    }
    await feeding;
    assert.ok(most <= 1, 'hashed one at a time, in order');
    assert.ok(waited > 0, 'write waited while every buffer was busy');
    assert.ok(seen.size <= 3, `${seen.size} buffers used, 3 at most`);
    assert.deepEqual(readFileSync(file), data);
    assert.equal(h.digest('hex'), createHash('sha256').update(data).digest('hex'));
  });

  void it('keeps what it received when aborted, and continues a file from an offset', async () => {
    const file = join(dir, 'b.bin');
    writeFileSync(file, 'stale content that is longer than what comes');
    const h = createHash('sha256');
    const hash: BufferHash = { update: (b, n) => (h.update(b.subarray(0, n)), b) };
    const first = randomBytes(700_000);
    const sink = await FileSink.open(file, 0, hash, { bufferBytes: 256 << 10 });
    await sink.write(first);
    await sink.abort();
    assert.deepEqual(readFileSync(file), first, 'every byte received is on disk, the stale tail gone');
    const rest = randomBytes(300_000);
    const again = await FileSink.open(file, first.length, hash, { bufferBytes: 256 << 10 });
    await again.write(rest);
    await again.end();
    assert.deepEqual(readFileSync(file), Buffer.concat([first, rest]));
  });

  void it('fails the download when the disk refuses a write, in words from the system', async () => {
    const hash: BufferHash = { update: (b) => b };
    const sink = await FileSink.open('/dev/full', 0, hash, { bufferBytes: 64 << 10 });
    await assert.rejects(async () => { await sink.write(randomBytes(200_000)); await sink.end(); }, /ENOSPC/);
    // After a broken stream too: the disk's refusal, not a retry from a file with a hole.
    const broken = await FileSink.open('/dev/full', 0, hash, { bufferBytes: 64 << 10 });
    await broken.write(randomBytes(100_000));
    await assert.rejects(broken.abort(), /ENOSPC/);
  });
});
