/**
 * Creating an empty file where a direct upload of 0 bytes cannot be trusted: the upstream v2
 * server never closes the upload command's stdin for an empty body and answers 408 after its
 * command timeout. An archive holding one empty file of that name is uploaded (it has bytes),
 * extracted into the folder by the server's synchronous extract, and removed. Used for empty
 * content on every server, so a save of an empty file behaves the same everywhere.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';
import type { CallOptions } from './api';

/** A gzipped tar holding one empty regular file named `name` (a pax header for long names). */
export function emptyFileArchive(name: string, mtime = new Date()): Buffer {
  const header = new Header({ path: name, mode: 0o666, size: 0, type: 'File', mtime });
  const block = Buffer.alloc(512);
  header.encode(block);
  const blocks = [block];
  if (header.needPax) blocks.unshift(new Pax({ path: name, mtime }).encode());
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
}

export interface EmptyFileRoutes {
  /** Uploads `data` as `dir/name`, directly (data is never empty here). */
  upload(dir: string, name: string, data: Uint8Array, o: CallOptions): Promise<void>;
  /** Extracts the gzipped tar `archive` into `dir`, synchronously. */
  extract(archive: string, dir: string, o: CallOptions): Promise<void>;
  remove(path: string, o: CallOptions): Promise<void>;
}

/** Creates (or empties) `dir/name` through an archive; the archive is removed whatever happens. */
export async function createEmptyFile(routes: EmptyFileRoutes, directory: string, name: string, o: CallOptions = {}): Promise<void> {
  const dir = directory.replace(/\/+$/, '') || '/';
  const archive = `.f7t-empty-${randomBytes(6).toString('hex')}.tar.gz`;
  const path = `${dir === '/' ? '' : dir}/${archive}`;
  await routes.upload(dir, archive, emptyFileArchive(name), o);
  try {
    await routes.extract(path, dir, o);
  } finally {
    await routes.remove(path, o).catch(() => undefined);
  }
}
