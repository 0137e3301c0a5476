/**
 * The staged download (§4.3): request it, wait for the job that stages the file (its log checked),
 * then stream the presigned GET into `temp` through a `FileSink` (large writes, hashed on the way
 * from the same buffers). A broken stream continues from the byte that reached the disk
 * (`Range: bytes=<n>-`). The caller renames `temp` into place.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CancelledError, isCancellation, messageOf } from '../errors';
import { backoffMs } from '../http/retryAfter';
import { sleep } from '../http/sleep';
import { FileSink, type BufferHash } from './fileSink';
import { ProgressMeter } from './progressMeter';
import { S3Error } from './s3Http';
import type { StagedTransferOptions } from './stagedTransfers';
import { isRetryable, type TransferDeps } from './transferDeps';
import { WorkerHash } from './workerHash';

/** A SHA-256 in progress: on a worker thread (the first pass) or inline (after a break). */
interface Sha extends BufferHash {
  digest(): string | Promise<string>;
  close?(): Promise<void>;
}

const inline = (h: Hash): Sha => ({ update: (b, n) => (h.update(b.subarray(0, n)), b), digest: () => h.digest('hex') });

/** The worker-thread hash, or inline when no worker can be started. */
function fresh(logger: TransferDeps['logger']): Sha {
  try {
    return new WorkerHash();
  } catch (e) {
    logger.debug(`No hashing thread (${messageOf(e)}): hashing inline`);
    return inline(createHash('sha256'));
  }
}

async function hashPrefix(file: string, length: number): Promise<Hash> {
  const h = createHash('sha256');
  if (length > 0) for await (const chunk of createReadStream(file, { end: length - 1, highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h;
}

/** Total size from `Content-Range: bytes a-b/total` or `Content-Length`; start offset of a 206. */
function sizes(status: number, headers: Record<string, string | string[] | undefined>): { start: number; total?: number } {
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  if (status === 206) {
    const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(one(headers['content-range']) ?? '');
    if (!m) throw new S3Error('download: a 206 answer without a usable Content-Range', true);
    return { start: Number(m[1]), total: m[2] === '*' ? undefined : Number(m[2]) };
  }
  const len = Number(one(headers['content-length']));
  return { start: 0, total: Number.isFinite(len) ? len : undefined };
}

/**
 * Copies `body` into `sink` until its end. 'data' events hand over the socket's chunks as they
 * are (an async iterator would join them into new buffers first); the body pauses while every
 * buffer of the sink is busy, and stops with the disk's error when it refused a write.
 */
function receive(body: Readable, sink: FileSink, counted: (bytes: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    body.on('data', (chunk: Buffer) => {
      counted(chunk.length);
      let wait: void | Promise<void>;
      try {
        wait = sink.write(chunk);
      } catch (e) {
        body.destroy(e as Error);
        return;
      }
      if (wait) {
        body.pause();
        wait.then(() => body.resume(), (e: unknown) => body.destroy(e as Error));
      }
    });
    body.once('end', resolve);
    body.once('error', reject);
    body.once('close', () => { if (!body.readableEnded) reject(new S3Error('download: the stream closed before its end', true)); });
  });
}

/** Downloads `remotePath` into `temp` (created or overwritten); resolves its size and SHA-256. */
export async function stagedDownload(deps: TransferDeps, system: string, remotePath: string, temp: string, o: StagedTransferOptions): Promise<{ bytes: number; sha256: string }> {
  const { api, s3, logger } = deps;
  const signal = o.signal;
  if (!deps.staging) throw new S3Error('Staged transfers are not available on this connection', false);
  const whole = await deps.staging.wholeDownload?.(system, signal);
  if (whole) return whole(system, remotePath, temp, o);
  o.onProgress?.({ phase: 'staging', message: 'Requesting a staged download' });
  const ticket = await deps.staging.startDownload(system, remotePath, { account: o.account, signal });
  try {
    await api.waitForTransferJob(ticket.transferJob, { signal, onProgress: (p) => o.onProgress?.({ ...p, phase: 'waiting' }) });
  } catch (e) {
    if (signal?.aborted || isCancellation(e)) await api.cancelJob(system, ticket.transferJob.jobId).catch(() => undefined);
    throw e;
  } finally {
    // The file is in the store (or the job is over): what the request needed on the cluster goes.
    await ticket.release?.();
  }

  const attempts = o.attempts ?? 5;
  let written = 0;
  // Hashing on the other core keeps this thread on the sockets and the disk.
  let hash = fresh(logger);
  let total: number | undefined;
  let meter: ProgressMeter | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await s3.get(ticket.downloadUrl, written, signal, 'download');
      const r = sizes(res.status, res.headers);
      if (r.start !== written) {
        if (r.start !== 0) throw new S3Error(`download: asked for byte ${written}, got a range from ${r.start}`, true);
        // The server ignored the range (200): start over from byte 0.
        meter?.add(-written);
        written = 0;
        await hash.close?.();
        hash = inline(createHash('sha256'));
      }
      if (r.total !== undefined) total = r.total;
      if (!meter) meter = new ProgressMeter(total ?? 0, undefined, o.onProgress, 'downloading');
      const sink = await FileSink.open(temp, written, hash);
      const m = meter;
      try {
        await receive(res.body, sink, (n) => { written += n; m.add(n); });
      } catch (e) {
        // What was received reaches the disk: the next request continues after it.
        await sink.abort();
        throw e;
      }
      await sink.end();
      if (total !== undefined && written !== total) throw new S3Error(`download: the stream ended at byte ${written} of ${total}`, true);
      await deps.staging.finishDownload?.(ticket).catch((e: unknown) => logger.debug(`Dropping the staged copy of ${system}:${remotePath} failed: ${messageOf(e)}`));
      const sha256 = await hash.digest();
      await hash.close?.();
      return { bytes: written, sha256 };
    } catch (e) {
      // Whatever comes next (giving up, or continuing with an inline hash), the thread is done.
      await hash.close?.();
      if (signal?.aborted) throw new CancelledError('Download cancelled', { cause: e });
      const retry = isRetryable(e) || (e as { code?: string }).code === 'UND_ERR_SOCKET' || (e as { code?: string }).code === 'ECONNRESET' || (e as Error).name === 'SocketError';
      if (!retry || attempt >= attempts) throw e;
      // What reached the disk is what counts: continue after it, with the hash recomputed over it.
      const onDisk = await stat(temp).then((s) => s.size, () => 0);
      meter?.add(onDisk - written);
      written = onDisk;
      hash = inline(await hashPrefix(temp, onDisk));
      const wait = backoffMs(attempt - 1, 500, 8000);
      logger.warn(`Download of ${system}:${remotePath} broke at byte ${written} (${messageOf(e)}); continuing in ${wait} ms (attempt ${attempt + 1}/${attempts})`);
      await sleep(wait, signal);
    }
  }
}
