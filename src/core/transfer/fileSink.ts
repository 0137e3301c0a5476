/**
 * Where a download's bytes go. The socket's small chunks are copied into larger buffers (1 MiB,
 * 16 at most); each full buffer is written with one call at its place in the file, then hashed from
 * the same memory (on the hashing thread, handed over and back) and used again. The small chunks
 * thus die young (one copy each, no stream holding them until the disk took them), which is most
 * of what a GiB cost in garbage collection, and the disk sees few, large writes. (Buffers of
 * 4 MiB cost more system time than they saved: measured in BENCHMARKS.md.)
 * At most `buffers` buffers are in use: `write` returns a promise while all are (back-pressure).
 */
import { open, type FileHandle } from 'node:fs/promises';

/** The file's SHA-256 in progress: takes a buffer's first `length` bytes, hands the buffer back. */
export interface BufferHash {
  update(buf: Uint8Array, length: number): Promise<Uint8Array> | Uint8Array;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

export class FileSink {
  private readonly free: Uint8Array[] = [];
  private current: Uint8Array | undefined;
  private used = 0;
  private allocated = 0;
  /** File offset where the current buffer's bytes go. */
  private position: number;
  /** The last buffer's write-then-hash: each waits for the one before, so this settles last. */
  private tail: Promise<void> = Promise.resolve();
  /** The last write: writes go one at a time, in file order. */
  private lastWrite: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private room: (() => void) | undefined;

  private constructor(
    private readonly file: FileHandle,
    start: number,
    private readonly hash: BufferHash,
    private readonly bufferBytes: number,
    private readonly buffers: number,
  ) {
    this.position = start;
  }

  /** Opens `path` for writing from byte `start` (0: created or emptied; otherwise kept up to there). */
  static async open(path: string, start: number, hash: BufferHash, o: { bufferBytes?: number; buffers?: number } = {}): Promise<FileSink> {
    const file = await open(path, start > 0 ? 'r+' : 'w');
    return new FileSink(file, start, hash, o.bufferBytes ?? 1 << 20, o.buffers ?? 16);
  }

  /** Copies `chunk` in; a promise when every buffer is busy (resolves once one is free again). */
  write(chunk: Uint8Array): void | Promise<void> {
    if (this.failure) throw this.failure;
    for (let at = 0; at < chunk.length;) {
      if (!this.current) {
        const next = this.take();
        if (!next) return this.waitForRoom().then(() => this.write(chunk.subarray(at)));
        this.current = next;
      }
      const n = Math.min(chunk.length - at, this.current.length - this.used);
      this.current.set(chunk.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      if (this.used === this.current.length) this.submit();
    }
    return undefined;
  }

  /** Writes what is left, waits for every write and hash, and closes the file. */
  async end(): Promise<void> {
    try {
      this.check();
      this.submit();
      await this.tail;
      this.check();
    } finally {
      await this.file.close().catch(() => undefined);
    }
  }

  /**
   * After a broken stream: writes what was received (after the writes before it) and closes the
   * file, so that it holds every byte received, in order, and a new request continues after them.
   * A write the disk refused is thrown (the download cannot continue).
   */
  async abort(): Promise<void> {
    try {
      if (this.current && this.used > 0 && !this.failure) await this.writeAt(this.current, this.used, this.position).catch((e: unknown) => { this.failure ??= asError(e); });
      this.current = undefined;
      await this.tail;
      this.check();
    } finally {
      await this.file.close().catch(() => undefined);
    }
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private take(): Uint8Array | undefined {
    const b = this.free.pop();
    if (b) return b;
    if (this.allocated >= this.buffers) return undefined;
    this.allocated++;
    return new Uint8Array(this.bufferBytes);
  }

  private waitForRoom(): Promise<void> {
    return new Promise<void>((resolve) => { this.room = resolve; }).then(() => { if (this.failure) throw this.failure; });
  }

  private release(buf: Uint8Array | undefined): void {
    if (buf && buf.byteLength === this.bufferBytes) this.free.push(buf);
    else this.allocated--;
    const r = this.room;
    this.room = undefined;
    r?.();
  }

  /** Writes the current buffer at its place, then (after the buffers before it) hashes it. */
  private submit(): void {
    const buf = this.current;
    const length = this.used;
    this.current = undefined;
    this.used = 0;
    if (!buf || length === 0) {
      if (buf) this.free.push(buf);
      return;
    }
    const position = this.position;
    this.position += length;
    const before = this.tail;
    const written = this.writeAt(buf, length, position);
    this.tail = Promise.all([written, before])
      .then(async () => this.release(await this.hash.update(buf, length)))
      .catch((e: unknown) => {
        this.failure ??= asError(e);
        this.release(undefined);
      });
  }

  /** One write at a time, in file order, as a stream writes: the file grows without holes. */
  private writeAt(buf: Uint8Array, length: number, position: number): Promise<unknown> {
    const written = this.lastWrite.then(() => this.file.write(buf, 0, length, position));
    this.lastWrite = written.then(() => undefined, () => undefined);
    return written;
  }
}
