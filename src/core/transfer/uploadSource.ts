/**
 * Where the bytes of an upload come from: a local file (each part read from its own byte range,
 * so parts go in parallel and memory stays bounded) or bytes already in memory (sliced, never
 * copied). Both hash the whole content in order for the SHA-256 check. A part is a plain stream
 * of 256 KiB chunks handed to the HTTP client as it is: the iterators that used to wrap it cost CPU
 * on the thread that drives every socket, and 64 KiB chunks cost a quarter more CPU than 256 KiB
 * for the same throughput (1 MiB saves little more; measured against curl, see BENCHMARKS.md).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { CancelledError } from '../errors';

const CHUNK = 1 << 20;
/** Chunks of a part as read and sent. */
const PART_CHUNK = 256 * 1024;

/** The content of an upload. */
export interface UploadSource {
  readonly size: number;
  /** What a resumed upload compares: a different size or mtime means a different file. */
  readonly identity: { path?: string; size: number; mtimeMs?: number };
  /** Bytes `[start, end)` as a paused stream (whoever consumes it resumes it). */
  range(start: number, end: number): Readable;
  /** SHA-256 (hex) of the whole content. */
  sha256(signal?: AbortSignal): Promise<string>;
}

/** A local file; its size and mtime are taken now. */
export async function fileSource(path: string): Promise<UploadSource> {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path} is not a regular file`);
  return {
    size: s.size,
    identity: { path, size: s.size, mtimeMs: s.mtimeMs },
    range(start: number, end: number): Readable {
      // `end` of createReadStream is inclusive.
      return end <= start ? Readable.from([]) : createReadStream(path, { start, end: end - 1, highWaterMark: PART_CHUNK }).pause();
    },
    async sha256(signal?: AbortSignal): Promise<string> {
      const h = createHash('sha256');
      for await (const chunk of createReadStream(path, { highWaterMark: CHUNK, signal })) h.update(chunk as Buffer);
      return h.digest('hex');
    },
  };
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
