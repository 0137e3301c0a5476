/**
 * S3 multipart uploads in the staging store: an upload id per open upload, each part streamed to
 * its own file (with its MD5 as the ETag, quoted like S3), and CompleteMultipartUpload checked the
 * way S3 checks it before the parts are streamed, in order, into the object. State lives on disk
 * under `<staging>/multipart/<uploadId>/`, so several instances over the same root agree.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

const NO_UPLOAD = 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.';

/** Sum of the sizes of the regular files below `dir` (0 when it does not exist). */
async function bytesBelow(dir: string, accept: (name: string) => boolean = () => true): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile() || !accept(e.name)) continue;
    total += (await stat(join(e.parentPath, e.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Counts a body's bytes and fails it (S3's refusal) the moment it passes `cap`. */
function capped(cap: number, failure: () => S3Failure): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _e, done) {
      size += chunk.length;
      if (size > cap) done(failure());
      else done(null, chunk);
    },
  });
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
      const skip = except?.uploadId === id ? `part-${except.partNumber}` : undefined;
      total += await bytesBelow(join(this.root, id), (name) => name.startsWith('part-') && !name.endsWith('.etag') && name !== skip);
    }
    return total;
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
    const temp = join(dir, `.${partNumber}.${randomBytes(6).toString('hex')}`);
    const md5 = createHash('md5');
    const hash = new Transform({ transform(chunk: Buffer, _e, done) { md5.update(chunk); done(null, chunk); } });
    try {
      await pipeline(body, capped(partCap, tooLarge), capped(room, overQuota), hash, createWriteStream(temp, { mode: 0o600 }));
      const etag = `"${md5.digest('hex')}"`;
      await rename(temp, join(dir, `part-${partNumber}`));
      await writeFile(join(dir, `part-${partNumber}.etag`), etag);
      return etag;
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  /**
   * Completes the upload: parts in strictly ascending order (InvalidPartOrder), each uploaded and
   * with its ETag (InvalidPart). The object appears atomically; the parts are then removed.
   */
  async complete(uploadId: string, bucket: string, key: string, parts: CompletedPart[]): Promise<StoredObject> {
    await this.check(uploadId, bucket, key);
    const dir = this.dir(uploadId);
    const md5s: Buffer[] = [];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i > 0 && p.partNumber <= parts[i - 1].partNumber) throw new S3Failure(400, 'InvalidPartOrder', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.');
      if (p.partNumber < 1 || p.partNumber > MAX_PARTS) throw new S3Failure(400, 'InvalidPart', `Part number ${p.partNumber} is out of range.`);
      const stored = await readFile(join(dir, `part-${p.partNumber}.etag`), 'utf8').catch(() => undefined);
      if (stored === undefined || !p.etag || bare(stored) !== bare(p.etag)) {
        throw new S3Failure(400, 'InvalidPart', `One or more of the specified parts could not be found or the specified entity tag might not have matched the part's entity tag (part ${p.partNumber}).`);
      }
      md5s.push(Buffer.from(bare(stored), 'hex'));
    }
    const files = parts.map((p) => join(dir, `part-${p.partNumber}`));
    async function* concatenated(): AsyncGenerator<Buffer> {
      for (const f of files) {
        for await (const chunk of createReadStream(f, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
      }
    }
    const object = await this.store.put(bucket, key, Readable.from(concatenated()));
    await rm(dir, { recursive: true, force: true });
    // S3's multipart ETag: MD5 of the parts' binary MD5s, then `-<number of parts>`.
    return { ...object, etag: `"${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${parts.length}"` };
  }

  /** AbortMultipartUpload: drops the parts. */
  async abort(uploadId: string, bucket: string, key: string): Promise<void> {
    await this.check(uploadId, bucket, key);
    await rm(this.dir(uploadId), { recursive: true, force: true });
  }
}
