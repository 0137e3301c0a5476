/**
 * Where the bytes of an upload come from: a local file (each part read from its own byte range,
 * so parts go in parallel and memory stays bounded) or bytes already in memory (sliced, never
 * copied). Both hash the whole content in order for the SHA-256 check.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { CancelledError } from '../errors';

const CHUNK = 1 << 20;

/** The content of an upload. */
export interface UploadSource {
  readonly size: number;
  /** What a resumed upload compares: a different size or mtime means a different file. */
  readonly identity: { path?: string; size: number; mtimeMs?: number };
  /** Bytes `[start, end)`, read lazily (nothing is opened until the first chunk is pulled). */
  range(start: number, end: number): AsyncIterable<Uint8Array>;
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
    async *range(start: number, end: number): AsyncGenerator<Uint8Array> {
      if (end <= start) return;
      // `end` of createReadStream is inclusive.
      for await (const chunk of createReadStream(path, { start, end: end - 1, highWaterMark: CHUNK })) yield chunk as Buffer;
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
    async *range(start: number, end: number): AsyncGenerator<Uint8Array> {
      for (let at = start; at < end; at += CHUNK) yield data.subarray(at, Math.min(end, at + CHUNK));
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
