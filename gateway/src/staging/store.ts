/**
 * The gateway's own object store, standing in for the S3 staging area of a real deployment: buckets
 * (one per user name) holding objects by key, kept as files under `<stateDir>/staging/objects`.
 * Objects are streamed to and from disk, never held whole in memory; a write lands in a temporary
 * file first and is renamed into place, so a reader never sees half an object. Listeners hear about
 * every completed write (the v1 upload flow waits on them).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingFileSink, Md5Session } from './hashing-sink';

export interface StoredObject {
  bucket: string;
  key: string;
  size: number;
  /** Quoted MD5 hex of the content, as S3 answers it. */
  etag: string;
}

export type PutListener = (object: StoredObject) => void;

const BUCKET = /^[a-z0-9_][a-z0-9_.-]{0,62}$/i;

/** Keys are relative paths without empty, `.` or `..` segments (they map onto the file system). */
export function validKey(key: string): boolean {
  if (!key || key.includes('\0') || key.startsWith('/')) return false;
  return key.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

export class ObjectStore {
  private readonly listeners = new Set<PutListener>();
  private readonly objects: string;
  private readonly tmp: string;

  /** The staging folder (`<stateDir>/staging`); multipart uploads keep their parts below it. */
  constructor(readonly root: string) {
    this.objects = join(root, 'objects');
    this.tmp = join(root, 'tmp');
  }

  private file(bucket: string, key: string): string {
    if (!BUCKET.test(bucket)) throw new Error(`invalid bucket name ${bucket}`);
    if (!validKey(key)) throw new Error(`invalid object key ${key}`);
    return join(this.objects, bucket, key);
  }

  onPut(listener: PutListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Streams `body` into `bucket/key`. `maxBytes` aborts (and discards) a body that grows past it;
   * the error then has `code = 'EntityTooLarge'`. The ETag's MD5 is computed on a worker thread
   * from what reached the disk (see hashing-sink.ts).
   */
  async put(bucket: string, key: string, body: Readable, maxBytes = Number.POSITIVE_INFINITY): Promise<StoredObject> {
    const target = this.file(bucket, key);
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    const temp = join(this.tmp, randomBytes(12).toString('hex'));
    const file = await open(temp, 'wx', 0o600);
    const md5 = new Md5Session(temp, 0);
    const refuse = (): Error => Object.assign(new Error('Your proposed upload exceeds the maximum allowed size'), { code: 'EntityTooLarge' });
    let etag: string;
    let size: number;
    try {
      const sink = new HashingFileSink(file, 0, md5, { bytes: maxBytes, refuse });
      await pipeline(body, sink);
      size = sink.position;
      etag = `"${await md5.end(size)}"`;
      await file.close();
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await rename(temp, target);
    } catch (e) {
      md5.drop();
      await file.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw e;
    }
    return this.added({ bucket, key, size, etag });
  }

  /**
   * Makes the finished file `path` (on the staging file system) the object `bucket/key`, by a
   * rename: how a completed multipart upload becomes its object without copying its bytes.
   */
  async adopt(bucket: string, key: string, path: string, size: number, etag: string): Promise<StoredObject> {
    const target = this.file(bucket, key);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rename(path, target);
    return this.added({ bucket, key, size, etag });
  }

  private added(object: StoredObject): StoredObject {
    for (const l of this.listeners) l(object);
    return object;
  }

  /** Size of an object, or undefined when there is none. */
  async size(bucket: string, key: string): Promise<number | undefined> {
    try {
      const s = await stat(this.file(bucket, key));
      return s.isFile() ? s.size : undefined;
    } catch {
      return undefined;
    }
  }

  /** A stream of bytes `start..end` (inclusive) of an object. */
  read(bucket: string, key: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.file(bucket, key), range);
  }

  /** The object's file, for moving it onto the cluster file system. */
  path(bucket: string, key: string): string {
    return this.file(bucket, key);
  }

  async delete(bucket: string, key: string): Promise<void> {
    await rm(this.file(bucket, key), { force: true });
  }

  /** Removes every object under `prefix/` (a task's folder). */
  async deletePrefix(bucket: string, prefix: string): Promise<void> {
    await rm(this.file(bucket, prefix), { recursive: true, force: true });
  }
}
