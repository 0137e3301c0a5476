/**
 * The staged upload (§4.3): parts PUT in parallel (default 10 connections), each streamed from its
 * byte range with an explicit Content-Length and retried alone when it fails; ETags kept verbatim;
 * CompleteMultipartUpload; then the transfer job is waited for and its log checked. The state is
 * handed out after every part so an interrupted upload resumes with only the missing parts.
 */
import { setMaxListeners } from 'node:events';
import { CancelledError, InvalidInputError, isCancellation, messageOf, NotFoundError } from '../errors';
import { backoffMs } from '../http/retryAfter';
import { sleep } from '../http/sleep';
import { ProgressMeter } from './progressMeter';
import { safeUrl } from './s3Http';
import type { StagedTransferOptions, StagedUploadState, UploadedPart } from './stagedTransfers';
import type { UploadSource } from './uploadSource';
import { isRetryable, urlsExpireAt, type TransferDeps } from './transferDeps';

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const xmlText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The CompleteMultipartUpload body, parts sorted, ETags as the server gave them. */
export function completeXml(parts: UploadedPart[]): string {
  const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
  const body = sorted.map((p) => `<Part><ETag>${xmlText(p.etag)}</ETag><PartNumber>${p.partNumber}</PartNumber></Part>`).join('');
  return `<?xml version='1.0' encoding='utf-8'?>\n<CompleteMultipartUpload xmlns="${XMLNS}">${body}</CompleteMultipartUpload>`;
}

function checkResumable(s: StagedUploadState, system: string, remotePath: string, source: UploadSource): void {
  const why =
    s.version !== 1 ? 'its state has an unknown format'
      : s.system !== system || s.remotePath !== remotePath ? `it was an upload to ${s.system}:${s.remotePath}`
        : s.source.size !== source.size || (s.source.mtimeMs !== undefined && source.identity.mtimeMs !== undefined && s.source.mtimeMs !== source.identity.mtimeMs) ? 'the local file changed since'
          : undefined;
  if (why) throw new InvalidInputError(`The staged upload cannot be resumed: ${why}; start it again`);
}

/**
 * Why the staged upload of `s` cannot be reused although it is the same file and target: its
 * presigned URLs expired, or its transfer job ended without success or is gone (a restarted
 * server, NODE_FAIL, a cancel). Undefined while the job may still move the object into place.
 * A server that cannot be reached now is not such a reason: that error is thrown (state kept).
 */
async function deadResume(deps: TransferDeps, s: StagedUploadState, signal: AbortSignal | undefined): Promise<{ why: string; jobMayRun?: boolean } | undefined> {
  // The job still waits for an object that can no longer come.
  if (s.expiresAt !== undefined && s.expiresAt <= Date.now()) return { why: 'its presigned URLs have expired', jobMayRun: true };
  const { jobId } = s.transferJob;
  try {
    const job = await deps.api.job(s.transferJob.system, jobId, { signal });
    if (!job.isFinal) return undefined;
    // Completed before our object arrived: it moved nothing of ours (the log check would fail).
    if (job.stateClass !== 'completed' || !s.completed) return { why: `its transfer job ${jobId} ended ${job.state}` };
    return undefined;
  } catch (e) {
    if (e instanceof NotFoundError) return { why: `its transfer job ${jobId} is gone` };
    throw e;
  }
}

/** What a staged upload did beyond moving the bytes. */
export interface StagedUploadOutcome {
  /** Set when `o.resume` could not be reused and a fresh staged upload was made instead: why. */
  restarted?: string;
}

/**
 * Uploads `source` to `remotePath` through the staging area. Resolves once the transfer job
 * succeeded. `partsSent` runs once every part is accepted (the caller hashes then, while the job runs).
 * A resumed state whose job already ended (or whose URLs expired) is replaced by a fresh upload.
 */
// eslint-disable-next-line max-lines-per-function -- the resumable multipart flow (resume or start, parts in parallel, complete, wait for the job) shares one state object with its part workers and its cleanup
export async function stagedUpload(deps: TransferDeps, system: string, source: UploadSource, remotePath: string, o: StagedTransferOptions, partsSent: () => void = () => undefined): Promise<StagedUploadOutcome> {
  const { api, s3, logger } = deps;
  const signal = o.signal;
  const whole = await deps.staging?.wholeUpload?.(system, signal);
  if (whole) {
    if (o.resume) throw new InvalidInputError(`The staged upload cannot be resumed: ${system} takes a large file in one piece; start it again`);
    // One piece: the hash reads the source next to it (there is no job wait to hide it in).
    partsSent();
    try {
      await whole(system, source, remotePath, o);
    } catch (e) {
      // The message says whether the server's task was invalidated (it then moves nothing).
      if (e instanceof CancelledError) logger.info(`Staged upload to ${system}:${remotePath} cancelled: ${e.message}`);
      throw e;
    }
    return {};
  }
  let state: StagedUploadState;
  let dead: Awaited<ReturnType<typeof deadResume>>;
  if (o.resume) {
    checkResumable(o.resume, system, remotePath, source);
    dead = await deadResume(deps, o.resume, signal);
  }
  const restarted = dead?.why;
  if (o.resume && restarted === undefined) {
    state = structuredClone(o.resume);
  } else {
    if (!deps.staging) throw new InvalidInputError('Staged transfers are not available on this connection');
    let message = 'Requesting a staged upload';
    if (o.resume && restarted !== undefined) {
      message = `The interrupted upload cannot be reused (${restarted}): starting a fresh staged upload`;
      logger.warn(`Staged upload to ${system}:${remotePath}: ${restarted}; starting a fresh staged upload of ${source.identity.path ?? 'the same data'} (the ${o.resume.done.length} part(s) sent before are dropped)`);
      if (dead?.jobMayRun) await api.cancelJob(o.resume.transferJob.system, o.resume.transferJob.jobId, { signal }).catch(() => undefined);
    }
    o.onProgress?.({ phase: 'staging', bytesDone: 0, bytesTotal: source.size, message });
    const t = await deps.staging.startUpload(system, remotePath, source.size, { account: o.account, signal });
    state = {
      version: 1, system, remotePath, source: source.identity, partSize: t.partSize, partsUploadUrls: t.partsUploadUrls,
      completeUploadUrl: t.completeUploadUrl, done: [], transferJob: t.transferJob, expiresAt: urlsExpireAt(t.partsUploadUrls[0]),
    };
  }
  const publish = (): void => o.onState?.(structuredClone(state));
  publish();
  const partsTotal = Math.max(1, Math.ceil(source.size / state.partSize));
  const meter = new ProgressMeter(source.size, partsTotal, o.onProgress, 'uploading');
  const finished = new Set(state.done.map((p) => p.partNumber));
  const partLength = (n: number): number => Math.max(0, Math.min(n * state.partSize, source.size) - (n - 1) * state.partSize);
  meter.skip([...finished].reduce((sum, n) => sum + partLength(n), 0), finished.size);
  const attempts = o.attempts ?? 5;

  const sendPart = async (n: number, partSignal: AbortSignal): Promise<void> => {
    const start = (n - 1) * state.partSize;
    const end = Math.min(n * state.partSize, source.size);
    for (let attempt = 1; ; attempt++) {
      let sent = 0;
      // Counted as the HTTP client takes the chunks (it pulls them as the socket takes them).
      const body = source.chunks(start, end, (bytes) => {
        sent += bytes;
        meter.add(bytes);
      });
      try {
        const etag = await s3.putPart(state.partsUploadUrls[n - 1], body, end - start, partSignal, `part ${n}/${partsTotal}`);
        state.done.push({ partNumber: n, etag });
        meter.partDone();
        publish();
        return;
      } catch (e) {
        meter.add(-sent);
        if (partSignal.aborted || isCancellation(e) || !isRetryable(e) || attempt >= attempts) throw e;
        const wait = backoffMs(attempt - 1, 500, 8000);
        logger.warn(`Part ${n}/${partsTotal} of ${system}:${remotePath} failed (${messageOf(e)}); attempt ${attempt + 1}/${attempts} in ${wait} ms`);
        await sleep(wait, partSignal);
      }
    }
  };

  const uploadParts = async (): Promise<void> => {
    const queue = Array.from({ length: partsTotal }, (_, i) => i + 1).filter((n) => !finished.has(n));
    const stop = new AbortController();
    const partSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    // Every part in flight listens on it (request + back-off sleep).
    setMaxListeners(4 * (o.parallelism ?? 10) + 10, partSignal);
    let failure: Error | undefined;
    const worker = async (): Promise<void> => {
      while (queue.length > 0 && failure === undefined) {
        const n = queue.shift() as number;
        try {
          await sendPart(n, partSignal);
        } catch (e) {
          // The first failure stops the others; the parts already done stay in the state.
          failure ??= e instanceof Error ? e : new Error(String(e));
          stop.abort();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.parallelism ?? 10, queue.length) }, worker));
    if (signal?.aborted) throw new CancelledError('Upload cancelled');
    if (failure !== undefined) throw failure;
  };

  const complete = async (): Promise<void> => {
    meter.setPhase('completing', 'Completing the multipart upload');
    for (let attempt = 1; ; attempt++) {
      try {
        await s3.post(state.completeUploadUrl, completeXml(state.done), signal, 'CompleteMultipartUpload');
        return;
      } catch (e) {
        // A lost answer to a completion that went through: the upload is gone; the job will tell.
        if (attempt > 1 && e instanceof NotFoundError) return;
        if (isCancellation(e) || !isRetryable(e) || attempt >= attempts) throw e;
        await sleep(backoffMs(attempt - 1, 500, 8000), signal);
      }
    }
  };

  const job = state.transferJob;
  try {
    if (!state.completed) {
      await uploadParts();
      await complete();
      state.completed = true;
      publish();
    }
    partsSent();
    // Every byte is in the staging area, but the cluster's transfer job may look for it only now
    // and then (upstream's checks every 60 s): say so instead of sitting at 100 %.
    const waiting = (state?: string): string => `All bytes sent; waiting for the cluster to pick up the upload (transfer job ${job.jobId}${state ? ` ${state.toLowerCase()}` : ''})`;
    meter.setPhase('waiting', waiting());
    await api.waitForTransferJob(job, { signal, onProgress: (p) => o.onProgress?.({ ...p, phase: 'waiting', bytesDone: source.size, bytesTotal: source.size, message: waiting(p.phase) }) });
    return { restarted };
  } catch (e) {
    if (signal?.aborted || isCancellation(e)) {
      // Cancelled: the job would wait for an object that never comes (or is being copied): stop it.
      await api.cancelJob(system, job.jobId).catch(() => undefined);
      logger.info(`Staged upload to ${system}:${remotePath} cancelled; transfer job ${job.jobId} cancelled (URLs of ${safeUrl(state.completeUploadUrl)} dropped)`);
      throw e instanceof CancelledError ? e : new CancelledError('Upload cancelled', { cause: e });
    }
    // Failed before any part was accepted: there is nothing to resume (a new attempt starts
    // afresh), and the job would wait for the object until its time limit: stop it.
    if (!state.completed && state.done.length === 0) {
      await api.cancelJob(system, job.jobId).catch(() => undefined);
      logger.info(`Staged upload to ${system}:${remotePath} failed before any part was accepted; transfer job ${job.jobId} cancelled`);
    }
    throw e;
  }
}
