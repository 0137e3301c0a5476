/**
 * SHA-256 on a worker thread, fed large buffers that are handed over, not copied: `update(buf, n)`
 * transfers `buf` to the worker, which hashes its first `n` bytes and hands it back (the promise
 * resolves with it, for the caller to fill again). A download hashes the very buffers it wrote to
 * the file, in order, while this thread keeps on the sockets and the disk. The worker is inline
 * code (no separate bundle file to ship).
 */
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
let hash = createHash('sha256');
parentPort.on('message', (m) => {
  if (m === 'digest') { parentPort.postMessage({ digest: hash.digest('hex') }); hash = createHash('sha256'); return; }
  hash.update(m.buf.subarray(0, m.length));
  parentPort.postMessage({ buf: m.buf }, [m.buf.buffer]);
});
`;

type Waiter = { buffer: (b: Uint8Array) => void; digest: (hex: string) => void; reject: (e: Error) => void };

/** A running SHA-256 whose work happens on a worker thread. */
export class WorkerHash {
  private readonly worker: Worker;
  /** One per message sent, answered in order (the worker takes its messages one by one). */
  private readonly waiters: Waiter[] = [];
  private failure: Error | undefined;

  constructor() {
    this.worker = new Worker(WORKER, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: { buf?: Uint8Array; digest?: string }) => {
      const w = this.waiters.shift();
      if (m.digest !== undefined) w?.digest(m.digest);
      else if (m.buf) w?.buffer(m.buf);
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the hashing thread stopped (exit code ${code})`)));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }

  private send<T>(message: unknown, transfer: ArrayBuffer[], settle: (resolve: (v: T) => void) => Partial<Waiter>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.waiters.push({ buffer: () => undefined, digest: () => undefined, ...settle(resolve), reject });
      this.worker.postMessage(message, transfer);
    });
  }

  /**
   * Hashes the first `length` bytes of `buf`, which belongs to the worker until the promise
   * resolves with it (the same memory, handed back). A view over part of a larger buffer is copied.
   */
  update(buf: Uint8Array, length = buf.length): Promise<Uint8Array> {
    const own = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength && buf.buffer instanceof ArrayBuffer ? buf : new Uint8Array(buf);
    return this.send<Uint8Array>({ buf: own, length }, [own.buffer as ArrayBuffer], (resolve) => ({ buffer: resolve }));
  }

  /** The hex digest of everything updated so far (the hash then starts afresh). */
  digest(): Promise<string> {
    return this.send<string>('digest', [], (resolve) => ({ digest: resolve }));
  }

  /** Stops the worker. Safe to call twice. */
  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    this.fail(new Error('the hashing thread was closed'));
    await this.worker.terminate();
  }
}
