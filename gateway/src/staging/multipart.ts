/**
 * S3 multipart uploads in the staging store: an upload id per open upload, each part streamed to
 * its place in the upload's one data file (its MD5, the ETag quoted like S3, computed on a worker
 * from what reached the disk), and CompleteMultipartUpload checked the way S3 checks it. When the
 * completion lists every part of the declared size, in order, the data file IS the object and is
 * renamed into place: no byte is read or written again. Any other selection of parts is copied,
 * in order, into a new object. State lives on disk under `<staging>/multipart/<uploadId>/`
 * (`upload.json`, `data`, and a `part-<n>.json` record per part received whole), so several
 * instances over the same root agree.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingFileSink, Md5Session } from './hashing-sink';
import type { ObjectStore, StoredObject } from './store';

/** An S3 refusal: HTTP status, S3 error code and message. */
export class S3Failure extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;
export const MAX_PARTS = 10000;

/** S3 compares ETags without their quotes. */
const bare = (etag: string): string => etag.trim().replace(/^"|"$/g, '').replace(/^&quot;|&quot;$/g, '');

/** Parses a CompleteMultipartUpload document; MalformedXML when it is not one. */
export function parseCompleteXml(xml: string): CompletedPart[] {
  if (!/<CompleteMultipartUpload(\s[^>]*)?>[\s\S]*<\/CompleteMultipartUpload>/.test(xml)) {
    throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
  }
  const parts: CompletedPart[] = [];
  for (const m of xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const n = /<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(m[1]);
    const e = /<ETag>([\s\S]*?)<\/ETag>/.exec(m[1]);
    if (!n) throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
    parts.push({ partNumber: Number(n[1]), etag: e ? e[1] : '' });
  }
  if (parts.length === 0) throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
  return parts;
}

/** What an upload was opened for: its declared total and the part size the client was told. */
export interface UploadLimits {
  size: number;
  partSize: number;
}

interface UploadMeta {
  bucket: string;
  key: string;
  size?: number;
  partSize?: number;
}

/** What is kept of a part received whole: its quoted ETag and its length. */
interface PartRecord {
  etag: string;
  size: number;
}

const NO_UPLOAD = 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.';

/** Sum of the sizes of the regular files below `dir` (0 when it does not exist). */
async function bytesBelow(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    total += (await stat(join(e.parentPath, e.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** The open multipart uploads of one staging store. */
export class MultipartUploads {
  private readonly root: string;

  constructor(private readonly store: ObjectStore) {
    this.root = join(store.root, 'multipart');
  }

  private dir(uploadId: string): string {
    if (!UPLOAD_ID.test(uploadId)) throw new S3Failure(404, 'NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.');
    return join(this.root, uploadId);
  }

  /** Opens an upload of `bucket/key` of `limits.size` bytes in parts of `limits.partSize`; resolves its upload id. */
  async create(bucket: string, key: string, limits: UploadLimits): Promise<string> {
    this.store.path(bucket, key); // validates bucket and key
    const uploadId = randomBytes(16).toString('hex');
    await mkdir(join(this.root, uploadId), { recursive: true, mode: 0o700 });
    await writeFile(join(this.root, uploadId, 'data'), '', { mode: 0o600 });
    const meta = { bucket, key, created: Date.now(), size: limits.size, partSize: limits.partSize };
    await writeFile(join(this.root, uploadId, 'upload.json'), JSON.stringify(meta), { mode: 0o600 });
    return uploadId;
  }

  private async meta(uploadId: string): Promise<UploadMeta> {
    try {
      return JSON.parse(await readFile(join(this.dir(uploadId), 'upload.json'), 'utf8')) as UploadMeta;
    } catch (e) {
      if (e instanceof S3Failure) throw e;
      throw new S3Failure(404, 'NoSuchUpload', NO_UPLOAD);
    }
  }

  /** The upload's object, checked against the URL it is addressed through (NoSuchUpload otherwise). */
  async check(uploadId: string, bucket: string, key: string): Promise<void> {
    const meta = await this.meta(uploadId);
    if (meta.bucket !== bucket || meta.key !== key) throw new S3Failure(404, 'NoSuchUpload', 'The specified upload does not exist for this key.');
  }

  /**
   * Bytes `bucket` holds in the staging area: its objects plus the parts of its open uploads (a
   * part being replaced, `except`, is not counted).
   */
  async usedBy(bucket: string, except?: { uploadId: string; partNumber: number }): Promise<number> {
    let total = await bytesBelow(join(this.store.root, 'objects', bucket));
    for (const id of await readdir(this.root).catch(() => [] as string[])) {
      if (!UPLOAD_ID.test(id)) continue;
      const meta = await this.meta(id).catch(() => undefined);
      if (meta?.bucket !== bucket) continue;
      for (const name of await readdir(join(this.root, id)).catch(() => [] as string[])) {
        const n = /^part-(\d+)\.json$/.exec(name);
        if (!n || (except?.uploadId === id && Number(n[1]) === except.partNumber)) continue;
        total += (await this.record(id, Number(n[1])))?.size ?? 0;
      }
    }
    return total;
  }

  /** The record of part `n` of an upload, or undefined when that part has not arrived whole. */
  private async record(uploadId: string, n: number): Promise<PartRecord | undefined> {
    try {
      const r = JSON.parse(await readFile(join(this.dir(uploadId), `part-${n}.json`), 'utf8')) as Partial<PartRecord>;
      return typeof r.etag === 'string' && typeof r.size === 'number' ? { etag: r.etag, size: r.size } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The most bytes part `partNumber` may hold: what remains of the declared size after the parts
   * before it, at most the part size; EntityTooLarge (InvalidArgument past the last part) otherwise.
   */
  private partCap(meta: UploadMeta, partNumber: number): number {
    if (meta.size === undefined || meta.partSize === undefined) return Number.POSITIVE_INFINITY;
    const parts = Math.max(1, Math.ceil(meta.size / meta.partSize));
    if (partNumber > parts) throw new S3Failure(400, 'InvalidArgument', `Part number ${partNumber} is past the last part (${parts}) of this ${meta.size}-byte upload.`);
    return Math.min(meta.partSize, meta.size - (partNumber - 1) * meta.partSize);
  }

  /**
   * Streams one part to disk (a retried part replaces the earlier one); resolves its quoted ETag.
   * A part larger than its share of the declared size, or one that would take the bucket past
   * `quota` bytes, is refused: before a byte is read when Content-Length says so, else the moment
   * it grows past the limit.
   */
  async putPart(uploadId: string, partNumber: number, body: Readable, opts: { contentLength?: number; quota?: number } = {}): Promise<string> {
    const dir = this.dir(uploadId);
    const meta = await this.meta(uploadId);
    const partCap = this.partCap(meta, partNumber);
    const tooLarge = (): S3Failure => new S3Failure(400, 'EntityTooLarge', `Your proposed upload exceeds the maximum allowed size: part ${partNumber} may hold at most ${partCap} bytes.`);
    let room = Number.POSITIVE_INFINITY;
    if (opts.quota !== undefined) room = Math.max(0, opts.quota - await this.usedBy(meta.bucket, { uploadId, partNumber }));
    const overQuota = (): S3Failure => new S3Failure(403, 'QuotaExceeded', `The staging area quota of ${opts.quota ?? 0} bytes per user would be exceeded: finish or abort other uploads first.`);
    if (opts.contentLength !== undefined) {
      if (opts.contentLength > partCap) throw tooLarge();
      if (opts.contentLength > room) throw overQuota();
    }
    // Part n lives at (n - 1) x the part size of the data file. A part sent again replaces the
    // earlier one: its record goes first, so until the new bytes are all in, the part is missing.
    if (meta.partSize === undefined) throw new S3Failure(404, 'NoSuchUpload', NO_UPLOAD);
    const start = (partNumber - 1) * meta.partSize;
    const recordPath = join(dir, `part-${partNumber}.json`);
    await rm(recordPath, { force: true });
    const data = join(dir, 'data');
    const file = await open(data, 'r+').catch(() => { throw new S3Failure(404, 'NoSuchUpload', NO_UPLOAD); });
    const md5 = new Md5Session(data, start);
    try {
      // Past its share of the declared size: EntityTooLarge; within it but past the quota: QuotaExceeded.
      const sink = new HashingFileSink(file, start, md5, { bytes: Math.min(partCap, room), refuse: (size) => (size > partCap ? tooLarge() : overQuota()) });
      await pipeline(body, sink);
      const etag = `"${await md5.end(sink.position)}"`;
      // Written whole, then renamed: a record is never half there.
      const temp = join(dir, `.part-${partNumber}.${randomBytes(6).toString('hex')}`);
      await writeFile(temp, JSON.stringify({ etag, size: sink.position - start } satisfies PartRecord), { mode: 0o600 });
      await rename(temp, recordPath);
      return etag;
    } catch (e) {
      md5.drop();
      throw e;
    } finally {
      await file.close().catch(() => undefined);
    }
  }

  /**
   * Completes the upload: parts in strictly ascending order (InvalidPartOrder), each uploaded and
   * with its ETag (InvalidPart). The object appears atomically; the parts are then removed.
   */
  async complete(uploadId: string, bucket: string, key: string, parts: CompletedPart[]): Promise<StoredObject> {
    await this.check(uploadId, bucket, key);
    const dir = this.dir(uploadId);
    const meta = await this.meta(uploadId);
    const md5s: Buffer[] = [];
    const records: PartRecord[] = [];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i > 0 && p.partNumber <= parts[i - 1].partNumber) throw new S3Failure(400, 'InvalidPartOrder', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.');
      if (p.partNumber < 1 || p.partNumber > MAX_PARTS) throw new S3Failure(400, 'InvalidPart', `Part number ${p.partNumber} is out of range.`);
      const stored = await this.record(uploadId, p.partNumber);
      if (stored === undefined || !p.etag || bare(stored.etag) !== bare(p.etag)) {
        throw new S3Failure(400, 'InvalidPart', `One or more of the specified parts could not be found or the specified entity tag might not have matched the part's entity tag (part ${p.partNumber}).`);
      }
      records.push(stored);
      md5s.push(Buffer.from(bare(stored.etag), 'hex'));
    }
    // S3's multipart ETag: MD5 of the parts' binary MD5s, then `-<number of parts>`.
    const etag = `"${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${parts.length}"`;
    const data = join(dir, 'data');
    const size = records.reduce((n, r) => n + r.size, 0);
    let object: StoredObject;
    if (this.isWhole(meta, parts, records)) {
      // Every part, each of its full length, in order: the data file is the object.
      await truncate(data, size);
      object = await this.store.adopt(bucket, key, data, size, etag);
    } else {
      const partSize = meta.partSize ?? 0;
      async function* selected(): AsyncGenerator<Buffer> {
        for (let i = 0; i < parts.length; i++) {
          if (records[i].size === 0) continue;
          const start = (parts[i].partNumber - 1) * partSize;
          for await (const chunk of createReadStream(data, { start, end: start + records[i].size - 1, highWaterMark: 1 << 20 })) yield chunk as Buffer;
        }
      }
      object = { ...await this.store.put(bucket, key, Readable.from(selected())), etag };
    }
    await rm(dir, { recursive: true, force: true });
    return object;
  }

  /** Whether `parts` are all the parts of the declared size, 1 to n in order, each of its full length. */
  private isWhole(meta: UploadMeta, parts: CompletedPart[], records: PartRecord[]): boolean {
    const { size, partSize } = meta;
    if (size === undefined || partSize === undefined) return false;
    if (parts.length !== Math.max(1, Math.ceil(size / partSize))) return false;
    return parts.every((p, i) => p.partNumber === i + 1 && records[i].size === Math.min(partSize, size - i * partSize));
  }

  /** AbortMultipartUpload: drops the parts. */
  async abort(uploadId: string, bucket: string, key: string): Promise<void> {
    await this.check(uploadId, bucket, key);
    await rm(this.dir(uploadId), { recursive: true, force: true });
  }
}
