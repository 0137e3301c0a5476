/**
 * SHA-256 on a worker thread: a download hands its chunks over (copied, a memcpy, and sent in
 * batches of 1 MiB: one message each way per batch, not per socket read) and keeps
 * writing while the other core hashes, instead of hashing inline on the thread that also drives
 * the sockets. Bounded: `update` resolves at once while less than `maxPending` bytes wait for the
 * worker, otherwise once the worker has caught up (the caller's stream then applies back-pressure).
 * The worker is inline code (no separate bundle file to ship).
 */
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
let hash = createHash('sha256');
let done = 0;
parentPort.on('message', (m) => {
  if (m === 'digest') { parentPort.postMessage({ digest: hash.digest('hex') }); hash = createHash('sha256'); done = 0; return; }
  hash.update(m);
  done += m.length;
  parentPort.postMessage({ done });
});
`;

/** A running SHA-256 whose work happens on a worker thread. */
export class WorkerHash {
  private readonly worker: Worker;
  private sent = 0;
  private done = 0;
  private waiting: (() => void) | undefined;
  private digestWaiter: { resolve: (hex: string) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;
  /** Bytes not yet posted, copied into one buffer of `batchBytes` (one message each way per batch). */
  private batch: Uint8Array;
  private used = 0;

  constructor(
    private readonly maxPending = 32 << 20,
    private readonly batchBytes = 1 << 20,
  ) {
    this.batch = new Uint8Array(batchBytes);
    this.worker = new Worker(WORKER, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: { done?: number; digest?: string }) => {
      if (m.digest !== undefined) {
        this.digestWaiter?.resolve(m.digest);
        this.digestWaiter = undefined;
        return;
      }
      this.done = m.done ?? this.done;
      if (this.waiting && this.sent - this.done < this.maxPending) {
        const w = this.waiting;
        this.waiting = undefined;
        w();
      }
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the hashing thread stopped (exit code ${code})`)));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.digestWaiter?.reject(this.failure);
    this.digestWaiter = undefined;
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  /**
   * Hands `chunk` to the worker (copied at once: the caller may reuse its buffer). Returns a promise
   * only when too much is pending (then it resolves once the worker caught up).
   */
  update(chunk: Uint8Array): void | Promise<void> {
    this.check();
    for (let at = 0; at < chunk.length;) {
      const n = Math.min(chunk.length - at, this.batch.length - this.used);
      this.batch.set(chunk.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      if (this.used === this.batch.length) this.flush();
    }
    if (this.sent - this.done < this.maxPending) return undefined;
    return new Promise<void>((r) => { this.waiting = r; }).then(() => this.check());
  }

  private flush(): void {
    if (this.used === 0) return;
    // Transferred, not cloned: the worker owns the batch from here.
    const full = this.used === this.batch.length ? this.batch : this.batch.slice(0, this.used);
    this.worker.postMessage(full, [full.buffer as ArrayBuffer]);
    this.sent += this.used;
    // (The transferred view reads as empty now: the size comes from the setting.)
    this.batch = new Uint8Array(this.batchBytes);
    this.used = 0;
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  /** The hex digest of everything updated so far (the hash then starts afresh). */
  digest(): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    this.flush();
    return new Promise((resolve, reject) => {
      this.digestWaiter = { resolve, reject };
      this.worker.postMessage('digest');
      this.sent = 0;
      this.done = 0;
    });
  }

  /** Stops the worker. Safe to call twice. */
  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
