/**
 * Staged transfers through the gateway's S3 stand-in (§3.5): `transfer/upload` opens a multipart
 * upload, hands out one presigned PUT per part plus the CompleteMultipartUpload URL, and submits
 * the ingress job that waits for the object and copies it to the target as the user;
 * `transfer/download` checks the source, submits the egress job that puts the file into the store,
 * and hands out the presigned GET at once (404 NoSuchKey until the job has finished). A site with
 * the `streamer` method is served by streamed.ts.
 */
import { randomUUID } from 'node:crypto';
import { join, posix } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { upstream } from '../compat';
import { Inputs } from '../fs/inputs';
import { runRemote } from '../fs/run-remote';
import { egressScript, ingressScript } from '../fs/staged-scripts';
import { ApiError, validationError } from '../http/errors';
import { MultipartUploads } from '../staging/multipart';
import { Signer } from '../staging/signer';
import { ObjectStore } from '../staging/store';
import { StagingSweeper } from '../staging/sweep';
import { ctx, type V2Deps } from './context';
import { streamerTransfer } from './streamed';
import type { SubmitTransferJob } from './context';

const METHOD = 's3';
/** The ingress job gives up after a day, like the real one (1440 probes of 60 s). */
const MAX_WAIT_SECONDS = 86400;

interface Directives {
  method: string;
  fileSize?: number;
}

/** `transferDirectives` (mandatory since 2.4.0), camelCase or snake_case keys. */
function directivesOf(req: FastifyRequest): Directives {
  const body = req.body as Record<string, unknown>;
  const raw = body.transferDirectives ?? body.transfer_directives;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw validationError('body', 'transferDirectives', 'Field required');
  const d = raw as Record<string, unknown>;
  const method = d.transferMethod ?? d.transfer_method;
  if (typeof method !== 'string') throw validationError('body', 'transferDirectives.transferMethod', 'Field required');
  const size = d.fileSize ?? d.file_size;
  if (size !== undefined && size !== null && (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)) {
    throw validationError('body', 'transferDirectives.fileSize', 'Input should be a valid integer');
  }
  return { method, fileSize: typeof size === 'number' ? size : undefined };
}

/** The staged object of one transfer: `<user bucket>/<uuid>/<basename>`. */
function objectFor(user: string, path: string): { bucket: string; key: string } {
  const name = posix.basename(path) || 'file';
  return { bucket: user, key: `${randomUUID()}/${name}` };
}

export async function stagedTransferRoutes(app: FastifyInstance, deps: V2Deps, submit: SubmitTransferJob): Promise<void> {
  const { settings } = deps;
  const root = join(settings.stateDir, 'staging');
  const store = new ObjectStore(root);
  const signer = Signer.load(root);
  const uploads = new MultipartUploads(store);
  // Expired uploads and objects (of v1 and v2: they share the store) are removed in the background.
  const sweeper = new StagingSweeper(root, () => settings.stagingTtlSeconds, (e) => app.log.error(e));
  // Before the server listens: nothing of this process is being written yet.
  await sweeper.sweepLeftovers();
  sweeper.start();
  app.addHook('onClose', async () => sweeper.stop());

  app.post('/upload', async (req, reply) => {
    const b = Inputs.body(req);
    const { user } = ctx(req);
    const target = b.sourcePath();
    const account = b.string(['account']);
    const d = directivesOf(req);
    if (d.method === 'streamer' && settings.transferMethod === 'streamer') return streamerTransfer(req, reply, 'upload', deps, submit);
    if (d.method !== METHOD || settings.transferMethod !== METHOD) throw new ApiError(400, 'Requested transfer method is not available.');
    if (d.fileSize === undefined) throw new ApiError(500, "Missing 'fileSize' in the s3 transfer directives: the number of parts cannot be computed.");
    const ttl = settings.stagingTtlSeconds;
    const partSize = settings.maxPartSize;
    const { bucket, key } = objectFor(user.name, target);
    const uploadId = await uploads.create(bucket, key, { size: d.fileSize, partSize });
    const parts = Math.max(1, Math.ceil(d.fileSize / partSize));
    const partsUploadUrls = Array.from({ length: parts }, (_, i) =>
      signer.presignUrl('PUT', settings.origin, bucket, key, ttl, { partNumber: String(i + 1), uploadId }));
    const completeUploadUrl = signer.presignUrl('POST', settings.origin, bucket, key, ttl, { uploadId });
    const job = await submit(req, 'IngressFileTransfer', (directives) => ingressScript({
      directives,
      target,
      objectUrl: signer.presignUrl('GET', settings.origin, bucket, key, ttl),
      deleteUrl: signer.presignUrl('DELETE', settings.origin, bucket, key, ttl),
      maxProbes: Math.min(ttl, MAX_WAIT_SECONDS),
      probeSeconds: settings.ingressPollSeconds,
    }), account).catch(async (e: unknown) => {
      await uploads.abort(uploadId, bucket, key).catch(() => undefined);
      throw e;
    });
    return reply.code(201).send({
      ...job,
      transferDirectives: { transferMethod: METHOD, partsUploadUrls, completeUploadUrl, maxPartSize: partSize },
    });
  });

  app.post('/download', async (req, reply) => {
    const b = Inputs.body(req);
    const { user } = ctx(req);
    const d = directivesOf(req);
    if (d.method === 'streamer' && settings.transferMethod === 'streamer') return streamerTransfer(req, reply, 'download', deps, submit);
    const source = b.sourcePath();
    const account = b.string(['account']);
    if (d.method !== METHOD || settings.transferMethod !== METHOD) throw new ApiError(400, 'Requested transfer method is not available.');
    const kind = (await runRemote(user, ['stat', '-L', '-c', '%F', '--', source], settings)).stdout.toString('utf8').trim();
    if (kind === 'directory') throw new ApiError(400, `${source} is a directory: only files can be downloaded.`);
    const ttl = settings.stagingTtlSeconds;
    const { bucket, key } = objectFor(user.name, source);
    const job = await submit(req, 'EgressFileTransfer', (directives) => egressScript({
      directives,
      source,
      putUrl: signer.presignUrl('PUT', settings.origin, bucket, key, ttl),
      unquotedSource: upstream(req),
    }), account);
    const downloadUrl = signer.presignUrl('GET', settings.origin, bucket, key, ttl);
    return reply.code(201).send({ ...job, transferDirectives: { transferMethod: METHOD, downloadUrl } });
  });
}
