/**
 * Where the bytes of an upload come from: a local file (each part read from its own byte range,
 * so parts go in parallel and memory stays bounded) or bytes already in memory (sliced, never
 * copied). Both hash the whole content in order for the SHA-256 check.
 *
 * Staged parts are sent with `chunks`: 1 MiB chunks read into two buffers per part that are used
 * in turn. A stream of fresh buffers per part (the earlier path, and `range` still) made V8 run a
 * full mark-compact every few dozen MiB on external-memory pressure, which cost the client about
 * 1.3 s of CPU per GiB next to curl's 0.3 s; with reused buffers it spends about 0.45 s (measured
 * against curl, see BENCHMARKS.md). In the extension host, whose heap is far larger, each of
 * those collections would cost more still.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { CancelledError, InvalidInputError } from '../errors';

const CHUNK = 1 << 20;
/** Chunks of a `range` stream (API v1 sends a whole file through it). */
const PART_CHUNK = 256 * 1024;
/** Chunks of a part as sent (`chunks`): well above a socket's write buffer (16-64 KiB). */
const SEND_CHUNK = 1 << 20;

/** The content of an upload. */
export interface UploadSource {
  readonly size: number;
  /** What a resumed upload compares: a different size or mtime means a different file. */
  readonly identity: { path?: string; size: number; mtimeMs?: number };
  /** Bytes `[start, end)` as a paused stream (whoever consumes it resumes it). */
  range(start: number, end: number): Readable;
  /**
   * Bytes `[start, end)` as chunks for a consumer that is done with a chunk before it asks for the
   * next but one (undici writing an iterable body: it waits for the socket to drain after each
   * chunk larger than the socket's buffer). A file's chunks are read into two buffers taken in
   * turn, so a chunk is overwritten two steps later: nothing is allocated per chunk, and V8 is not
   * pushed into a full garbage collection every few MiB by short-lived buffers. `onChunk` counts
   * each chunk as it is handed out. Ending the iteration early (`return()`) closes the file.
   */
  chunks(start: number, end: number, onChunk?: (bytes: number) => void): AsyncGenerator<Uint8Array, void, undefined>;
  /** SHA-256 (hex) of the whole content. */
  sha256(signal?: AbortSignal): Promise<string>;
}

/** A local file; its size and mtime are taken now. */
export async function fileSource(path: string): Promise<UploadSource> {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path} is not a regular file`);
  const source: UploadSource = {
    size: s.size,
    identity: { path, size: s.size, mtimeMs: s.mtimeMs },
    range(start: number, end: number): Readable {
      // `end` of createReadStream is inclusive.
      return end <= start ? Readable.from([]) : createReadStream(path, { start, end: end - 1, highWaterMark: PART_CHUNK }).pause();
    },
    async *chunks(start: number, end: number, onChunk?: (bytes: number) => void): AsyncGenerator<Uint8Array, void, undefined> {
      if (end <= start) return;
      const fh = await open(path, 'r');
      try {
        const size = Math.min(SEND_CHUNK, end - start);
        const buffers = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
        for (let at = start, i = 0; at < end; i ^= 1) {
          const buf = buffers[i];
          const { bytesRead } = await fh.read(buf, 0, Math.min(size, end - at), at);
          if (bytesRead === 0) throw new InvalidInputError(`${path} ended at byte ${at} while it was uploaded (it was ${s.size} bytes); upload it again`);
          at += bytesRead;
          onChunk?.(bytesRead);
          yield bytesRead === size ? buf : buf.subarray(0, bytesRead);
        }
      } finally {
        await fh.close();
      }
    },
    async sha256(signal?: AbortSignal): Promise<string> {
      // Through the same two reused buffers as the parts (each hashed before the next read): a
      // stream's fresh 1 MiB buffer per chunk cost about 0.3 s of garbage collection per GiB.
      const h = createHash('sha256');
      for await (const chunk of source.chunks(0, s.size)) {
        if (signal?.aborted) throw new CancelledError();
        h.update(chunk);
      }
      return h.digest('hex');
    },
  };
  return source;
}

/** Bytes in memory (a VS Code `writeFile`): parts are views into the same buffer. */
export function bytesSource(data: Uint8Array): UploadSource {
  return {
    size: data.length,
    identity: { size: data.length },
    range(start: number, end: number): Readable {
      const chunks: Uint8Array[] = [];
      for (let at = start; at < end; at += PART_CHUNK) chunks.push(data.subarray(at, Math.min(end, at + PART_CHUNK)));
      return Readable.from(chunks, { objectMode: false }).pause();
    },
    async *chunks(start: number, end: number, onChunk?: (bytes: number) => void): AsyncGenerator<Uint8Array, void, undefined> {
      // Views into the caller's bytes: nothing is overwritten, so no rule on when a chunk is done.
      for (let at = start; at < end; at += SEND_CHUNK) {
        const chunk = data.subarray(at, Math.min(end, at + SEND_CHUNK));
        onChunk?.(chunk.length);
        yield await Promise.resolve(chunk);
      }
    },
    async sha256(signal?: AbortSignal): Promise<string> {
      const h = createHash('sha256');
      for (let at = 0; at < data.length; at += 16 * CHUNK) {
        if (signal?.aborted) throw new CancelledError();
        h.update(data.subarray(at, at + 16 * CHUNK));
        // Let other work (the part uploads) run between slices of a large buffer.
        await new Promise((r) => setImmediate(r));
      }
      return h.digest('hex');
    },
  };
}
