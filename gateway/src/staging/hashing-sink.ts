/**
 * Writing a body to a file while its MD5 (the S3 ETag) is computed off the main thread.
 *
 * The main thread only writes: a `HashingFileSink` puts each chunk at its position in the file and
 * then tells a hashing worker how far the file is written. The worker reads those bytes back (they
 * are still in the page cache) and feeds them to its MD5, so hashing runs beside the transfer on
 * another core and ends a moment after the last write. Messages are small (an offset per MiB), not
 * the bytes themselves.
 *
 * The workers (at most two, one per core of the machines this gateway is sized for) are started on
 * first use, hold any number of sessions, never keep the process alive, and are replaced when one
 * dies; its sessions then fail, and so do the writes they belonged to.
 */
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';

/** The worker: plain JavaScript (no bundle entry of its own), sessions by id. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const sessions = new Map();
const buf = Buffer.allocUnsafe(1 << 20);
function close(id) {
  const s = sessions.get(id);
  sessions.delete(id);
  if (s) try { closeSync(s.fd); } catch {}
}
parentPort.on('message', (m) => {
  try {
    if (m.op === 'open') {
      sessions.set(m.id, { fd: openSync(m.path, 'r'), pos: m.start, md5: createHash('md5') });
      return;
    }
    if (m.op === 'drop') return close(m.id);
    const s = sessions.get(m.id);
    if (!s) return;
    while (s.pos < m.upTo) {
      const n = readSync(s.fd, buf, 0, Math.min(buf.length, m.upTo - s.pos), s.pos);
      if (n <= 0) throw new Error('the file is shorter than what was written to it');
      s.md5.update(n === buf.length ? buf : buf.subarray(0, n));
      s.pos += n;
    }
    if (m.op === 'end') {
      const md5 = s.md5.digest('hex');
      close(m.id);
      parentPort.postMessage({ id: m.id, md5 });
    }
  } catch (e) {
    close(m.id);
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});
`;

/** Offsets are sent once at least this much more is written (and at the end). */
const NOTIFY_BYTES = 1 << 20;
const POOL_SIZE = 2;

interface Pending {
  resolve(md5: string): void;
  reject(e: Error): void;
}

class HashWorker {
  readonly worker = new Worker(WORKER, { eval: true });
  readonly pending = new Map<number, Pending>();
  sessions = 0;
  dead = false;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (m: { id: number; md5?: string; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.md5 !== undefined) p.resolve(m.md5);
      else p.reject(new Error(`MD5 of the written bytes failed: ${m.error ?? 'unknown error'}`));
    });
    const fail = (e: Error): void => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the hashing worker stopped (exit code ${code})`)));
  }
}

const pool: HashWorker[] = [];
let nextId = 0;

/** The least busy live worker, starting one while the pool is not full. */
function pick(): HashWorker {
  for (let i = pool.length - 1; i >= 0; i--) if (pool[i].dead) pool.splice(i, 1);
  const idle = pool.find((w) => w.sessions === 0);
  if (idle) return idle;
  if (pool.length < POOL_SIZE) {
    const w = new HashWorker();
    pool.push(w);
    return w;
  }
  return pool.reduce((a, b) => (b.sessions < a.sessions ? b : a));
}

/** An MD5 of `path` from byte `start` on, following what has been written there. */
export class Md5Session {
  private readonly worker = pick();
  private readonly id = ++nextId;
  private sent: number;
  private open = true;
  private readonly result: Promise<string>;

  constructor(path: string, private readonly start: number) {
    this.sent = start;
    this.worker.sessions++;
    this.result = new Promise<string>((resolve, reject) => this.worker.pending.set(this.id, { resolve, reject }));
    // Observed by `end`; a failure before then must not be an unhandled rejection.
    this.result.catch(() => undefined);
    this.worker.worker.postMessage({ op: 'open', id: this.id, path, start });
  }

  /** The file now holds the bytes up to `upTo` (exclusive). */
  written(upTo: number): void {
    if (!this.open || upTo - this.sent < NOTIFY_BYTES) return;
    this.sent = upTo;
    this.worker.worker.postMessage({ op: 'more', id: this.id, upTo });
  }

  /** The hex MD5 of bytes `start..upTo` once the worker has read them all. */
  async end(upTo: number): Promise<string> {
    if (!this.open) throw new Error('this MD5 session was already ended');
    this.open = false;
    this.worker.worker.postMessage({ op: 'end', id: this.id, upTo: Math.max(upTo, this.start) });
    try {
      return await this.result;
    } finally {
      this.worker.sessions--;
    }
  }

  /** Abandons the session (the write failed). */
  drop(): void {
    if (!this.open) return;
    this.open = false;
    this.worker.sessions--;
    this.worker.pending.delete(this.id);
    if (!this.worker.dead) this.worker.worker.postMessage({ op: 'drop', id: this.id });
  }
}

/**
 * A Writable putting each chunk at its place in an open file (from `start` on) and telling `session`
 * how far the file is written. `position` is where the next byte goes. A body that would grow past
 * `limit.bytes` fails with `limit.refuse(size)` (size: the bytes it would have reached) before
 * anything past the limit is written.
 */
export class HashingFileSink extends Writable {
  position: number;

  constructor(
    private readonly file: FileHandle,
    private readonly start: number,
    private readonly session: Md5Session,
    private readonly limit: { bytes: number; refuse(size: number): Error },
  ) {
    super({ highWaterMark: 1 << 20 });
    this.position = start;
  }

  override _writev(chunks: { chunk: Buffer }[], done: (e?: Error | null) => void): void {
    this.put(chunks.map((c) => c.chunk)).then(() => done(), done);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    this.put([chunk]).then(() => done(), done);
  }

  private async put(buffers: Buffer[]): Promise<void> {
    let left = buffers.reduce((n, b) => n + b.length, 0);
    const size = this.position - this.start + left;
    if (size > this.limit.bytes) throw this.limit.refuse(size);
    let pending = buffers;
    while (left > 0) {
      const { bytesWritten } = await this.file.writev(pending, this.position);
      if (bytesWritten <= 0) throw new Error('the disk took no bytes');
      this.position += bytesWritten;
      left -= bytesWritten;
      if (left > 0) pending = remainder(pending, bytesWritten);
    }
    this.session.written(this.position);
  }
}

/** What is left of `buffers` after the first `skip` bytes. */
function remainder(buffers: Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  for (const b of buffers) {
    if (skip >= b.length) { skip -= b.length; continue; }
    out.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
}
