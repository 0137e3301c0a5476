/**
 * The staging store's HTTP face under `<origin>/s3`, S3-style: presigned `GET` (and the automatic `HEAD`) of an object
 * (with `Range`), and the presigned `POST` form upload into a bucket. No FirecREST token: the
 * presigned query or policy is the authorisation. Errors are S3 XML documents. The write calls
 * (multipart parts, CompleteMultipartUpload, PutObject, DELETE) are in write-routes.ts.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { s3Error } from './s3-reply';
import type { StagingDeps } from './deps';
import { validKey } from './store';
import { stagingWriteRoutes } from './write-routes';


export { s3Error };
export type { StagingDeps };

function queryOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` against `size`; 'bad' when unsatisfiable, undefined when absent/ignored. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'bad' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'bad';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'bad';
  return { start, end };
}

async function getObject(req: FastifyRequest<{ Params: { bucket: string; '*': string } }>, reply: FastifyReply, deps: StagingDeps): Promise<FastifyReply> {
  const { bucket } = req.params;
  const key = req.params['*'];
  const path = `/s3/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const refusal = deps.signer.verifyUrl('GET', path, queryOf(req));
  if (refusal) return s3Error(reply, 403, refusal.code, refusal.message, path);
  const size = validKey(key) ? await deps.store.size(bucket, key) : undefined;
  if (size === undefined) return s3Error(reply, 404, 'NoSuchKey', 'The specified key does not exist.', path);
  reply.header('Accept-Ranges', 'bytes').header('Content-Type', 'application/octet-stream');
  const range = parseRange(req.headers.range, size);
  if (range === 'bad') {
    reply.header('Content-Range', `bytes */${size}`);
    return s3Error(reply, 416, 'InvalidRange', 'The requested range is not satisfiable', path);
  }
  // Fastify's automatic HEAD route sets Content-Length 0 for an empty payload but keeps ours for a
  // stream: an empty stream keeps the object's size without reading the object.
  if (req.method === 'HEAD') return reply.code(200).header('Content-Length', String(size)).send(Readable.from([]));
  if (range) {
    reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${size}`).header('Content-Length', String(range.end - range.start + 1));
    return reply.send(deps.store.read(bucket, key, range));
  }
  if (size === 0) return reply.code(200).header('Content-Length', '0').send('');
  return reply.code(200).header('Content-Length', String(size)).send(deps.store.read(bucket, key));
}

/** Presigned POST (fields first, then the part `file`), streamed into the store; 204 like S3's default. */
async function postObject(req: FastifyRequest<{ Params: { bucket: string } }>, reply: FastifyReply, deps: StagingDeps): Promise<FastifyReply> {
  const { bucket } = req.params;
  if (!req.isMultipart()) return s3Error(reply, 400, 'InvalidRequest', 'Bucket POST must be of the enclosure-type multipart/form-data', `/s3/${bucket}`);
  const fields: Record<string, string> = {};
  // The file part's own size cap is the policy's; the plugin-wide cap is meant for ops uploads.
  for await (const part of req.parts({ limits: { fileSize: Number.MAX_SAFE_INTEGER, files: 1 } })) {
    if (part.type === 'field') {
      fields[part.fieldname.toLowerCase() === 'key' ? 'key' : part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname !== 'file') {
      part.file.resume();
      continue;
    }
    const { refusal, policy } = deps.signer.verifyPost(bucket, fields);
    if (refusal || !policy) {
      part.file.resume();
      return s3Error(reply, 403, refusal?.code ?? 'AccessDenied', refusal?.message ?? 'Access Denied', `/s3/${bucket}`);
    }
    try {
      const obj = await deps.store.put(bucket, policy.key, part.file, policy.maxBytes);
      return reply.code(204).header('ETag', obj.etag).header('Location', `/s3/${bucket}/${policy.key}`).send();
    } catch (e) {
      if ((e as { code?: string }).code === 'EntityTooLarge') {
        part.file.resume();
        return s3Error(reply, 400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', `/s3/${bucket}/${policy.key}`);
      }
      throw e;
    }
  }
  return s3Error(reply, 400, 'InvalidArgument', 'POST requires exactly one file upload per request.', `/s3/${bucket}`);
}

export async function stagingRoutes(app: FastifyInstance, deps: StagingDeps): Promise<void> {
  app.setNotFoundHandler((req, reply) => s3Error(reply, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', req.url.split('?')[0]));
  app.setErrorHandler((error, req, reply) => {
    req.log.error(error);
    return s3Error(reply, 500, 'InternalError', 'We encountered an internal error. Please try again.', req.url.split('?')[0]);
  });
  app.get<{ Params: { bucket: string; '*': string } }>('/:bucket/*', (req, reply) => getObject(req, reply, deps));
  app.post<{ Params: { bucket: string } }>('/:bucket', (req, reply) => postObject(req, reply, deps));
  await stagingWriteRoutes(app, deps);
}
