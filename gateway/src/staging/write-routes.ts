/**
 * The S3 write calls of the staging store, each authorised by its presigned URL alone: UploadPart
 * (`PUT ?partNumber&uploadId`), PutObject (`PUT`, used by the download jobs),
 * CompleteMultipartUpload (`POST ?uploadId` with the XML of §4.3), AbortMultipartUpload and
 * DeleteObject (`DELETE`). Bodies are streamed to disk; only the small completion XML is read whole.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PARTS, MultipartUploads, parseCompleteXml, S3Failure } from './multipart';
import type { StagingDeps } from './deps';
import { s3Error } from './s3-reply';
import { validKey } from './store';

type ObjectRequest = FastifyRequest<{ Params: { bucket: string; '*': string } }>;

const MAX_XML = 1 << 20;

function queryOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The object a request addresses and the refusal of its presigned URL, if any. */
function addressed(req: ObjectRequest, deps: StagingDeps): { bucket: string; key: string; path: string; query: Record<string, string>; refusal?: S3Failure } {
  const { bucket } = req.params;
  const key = req.params['*'];
  const path = `/s3/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const query = queryOf(req);
  const r = deps.signer.verifyUrl(req.method, path, query);
  if (r) return { bucket, key, path, query, refusal: new S3Failure(403, r.code, r.message) };
  if (!validKey(key)) return { bucket, key, path, query, refusal: new S3Failure(400, 'InvalidArgument', 'Invalid object key.') };
  return { bucket, key, path, query };
}

async function readText(req: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > MAX_XML) throw new S3Failure(400, 'MalformedXML', 'The XML you provided was too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const xmlEscape = (s: string): string => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export async function stagingWriteRoutes(app: FastifyInstance, deps: StagingDeps): Promise<void> {
  const uploads = new MultipartUploads(deps.store);
  // Leave bodies unread (S3 clients send any Content-Type): the handlers stream them themselves.
  // Multipart forms keep their parser (the POST form upload of routes.ts).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const guard = (handler: (req: ObjectRequest, reply: FastifyReply, at: ReturnType<typeof addressed>) => Promise<FastifyReply>) =>
    async (req: ObjectRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const at = addressed(req, deps);
      try {
        if (at.refusal) throw at.refusal;
        return await handler(req, reply, at);
      } catch (e) {
        if (!(e instanceof S3Failure)) throw e;
        // The body of a refused upload is drained, so the client reads the answer instead of a reset.
        req.raw.resume();
        return s3Error(reply, e.status, e.code, e.message, at.path);
      }
    };

  app.put<{ Params: { bucket: string; '*': string } }>('/:bucket/*', guard(async (req, reply, at) => {
    const { uploadId, partNumber } = at.query;
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    const contentLength = declared !== undefined && Number.isFinite(declared) ? declared : undefined;
    if (uploadId === undefined && partNumber === undefined) {
      // PutObject (the download jobs): within what remains of the user's staging quota.
      const room = Math.max(0, deps.quotaBytes() - await uploads.usedBy(at.bucket));
      const overQuota = new S3Failure(403, 'QuotaExceeded', `The staging area quota of ${deps.quotaBytes()} bytes per user would be exceeded.`);
      if (contentLength !== undefined && contentLength > room) throw overQuota;
      const obj = await deps.store.put(at.bucket, at.key, req.raw, room).catch((e: unknown) => {
        throw (e as { code?: string }).code === 'EntityTooLarge' ? overQuota : e;
      });
      return reply.code(200).header('ETag', obj.etag).send();
    }
    const n = Number(partNumber);
    if (!Number.isInteger(n) || n < 1 || n > MAX_PARTS) throw new S3Failure(400, 'InvalidArgument', `Part number must be an integer between 1 and ${MAX_PARTS}, inclusive`);
    await uploads.check(uploadId ?? '', at.bucket, at.key);
    const etag = await uploads.putPart(uploadId ?? '', n, req.raw, { contentLength, quota: deps.quotaBytes() });
    return reply.code(200).header('ETag', etag).send();
  }));

  app.post<{ Params: { bucket: string; '*': string } }>('/:bucket/*', guard(async (req, reply, at) => {
    const { uploadId } = at.query;
    if (uploadId === undefined) throw new S3Failure(400, 'InvalidRequest', 'POST on an object needs ?uploadId (CompleteMultipartUpload).');
    const parts = parseCompleteXml(await readText(req));
    const obj = await uploads.complete(uploadId, at.bucket, at.key, parts);
    const body = '<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
      + `<Location>${xmlEscape(at.path)}</Location><Bucket>${xmlEscape(at.bucket)}</Bucket><Key>${xmlEscape(at.key)}</Key><ETag>${xmlEscape(obj.etag)}</ETag></CompleteMultipartUploadResult>`;
    return reply.code(200).type('application/xml').send(body);
  }));

  app.delete<{ Params: { bucket: string; '*': string } }>('/:bucket/*', guard(async (_req, reply, at) => {
    if (at.query.uploadId !== undefined) await uploads.abort(at.query.uploadId, at.bucket, at.key);
    else await deps.store.delete(at.bucket, at.key);
    return reply.code(204).send();
  }));
}
