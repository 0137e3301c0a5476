/**
 * Waiting for jobs the way the official v2 client does (§4.3): poll with growing sleeps, tolerate
 * "Job not found" for a new job, cancel on overall timeout; then, for transfer jobs, read the log.
 */
import type { WaitOptions } from '../api';
import { NotFoundError, ServerError, TimeoutError, TooLargeError, UnavailableError } from '../errors';
import { sleep } from '../http/sleep';
import type { Job, TransferJob } from '../model';
import type { ComputeRoutes } from './compute';
import type { OpsRoutes } from './ops';

/** Sleeps in seconds: 0.2, 0.5, 1, 2, 4, ... doubling while below 60 (then 64, 64, ...). */
export function* pollSleeps(): Generator<number, never> {
  yield 0.2;
  yield 0.5;
  let s = 1;
  for (;;) {
    yield s;
    if (s < 60) s *= 2;
  }
}

/**
 * Sleeps between looks at a transfer job: someone is waiting on it (a save, a copy, a staged
 * transfer), and most end within seconds of being able to start. At most one look a second for the
 * first 10 s (two a second in its first two), then growing to one every 10 s: a finished transfer is
 * noticed within a second while it is short, and within 10 s when it is long, where the official
 * schedule (`pollSleeps`) can take up to a minute.
 */
export function* transferPollSleeps(): Generator<number, never> {
  yield* [0.2, 0.3, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8];
  for (;;) yield 10;
}

/** What a transfer job's log says when it ended well (the streamer's: `File <path> received|sent successfully.`). */
const SUCCESS_MARKERS = ['Files were successfully', 'File was successfully', 'Multipart file upload successfully completed', 'received successfully.', 'sent successfully.'];

/**
 * The log files the v2 server names for its transfer jobs (§3.5): `.f7t_file_handling_job_<uuid>.log`
 * and `…_error_<uuid>.log`. Only a path of exactly that form is ever removed: the names come from
 * the server, and a server's answer is not trusted to name a file the user keeps.
 */
const TRANSFER_LOG = /\/\.f7t_file_handling_job_(error_)?[0-9a-f][0-9a-f-]{7,63}\.log$/;

/**
 * A poll that did not reach the server (restart, dropped connection, a request that timed out):
 * the job runs on regardless, so the wait goes on for a while instead of failing the transfer.
 */
function isUnreachable(e: unknown): boolean {
  return e instanceof UnavailableError || e instanceof TimeoutError;
}

/** How long polls may keep failing to reach the server before the wait gives up (default). */
export const UNREACHABLE_TOLERANCE_MS = 90_000;

/** A job the scheduler does not know yet (a new job), as the v2 server says it. */
export function isJobNotFound(e: unknown): boolean {
  return e instanceof NotFoundError && /job\b.*not found/i.test(e.message);
}

/** Job waiting and transfer-job verification for one connection. */
export class JobWaiter {
  constructor(
    private readonly compute: ComputeRoutes,
    private readonly ops: OpsRoutes,
    private readonly now: () => number = Date.now,
  ) {}

  async waitForJob(system: string, jobId: string, o: WaitOptions = {}, schedule: () => Generator<number, never> = pollSleeps): Promise<Job> {
    const started = this.now();
    const notFoundMs = o.notFoundTimeoutMs ?? 20_000;
    const tolerance = o.unreachableToleranceMs ?? UNREACHABLE_TOLERANCE_MS;
    let unreachableSince: number | undefined;
    const sleeps = schedule();
    for (;;) {
      try {
        const job = await this.compute.job(system, jobId, { signal: o.signal, timeoutMs: o.timeoutMs });
        unreachableSince = undefined;
        o.onProgress?.({ phase: job.state, message: `Job ${jobId} is ${job.state}` });
        if (job.isFinal) return job;
      } catch (e) {
        if (isUnreachable(e) && !o.signal?.aborted) {
          unreachableSince ??= this.now();
          if (this.now() - unreachableSince > tolerance) throw e;
          o.onProgress?.({ phase: 'UNREACHABLE', message: `Server unreachable while waiting for job ${jobId}; trying again` });
        } else {
          if (!isJobNotFound(e) || this.now() - started > notFoundMs) throw e;
          o.onProgress?.({ phase: 'PENDING', message: `Job ${jobId} is not known to the scheduler yet` });
        }
      }
      const nextMs = sleeps.next().value * 1000;
      if (o.overallTimeoutMs !== undefined && this.now() - started + nextMs > o.overallTimeoutMs) {
        await this.compute.cancel(system, jobId).catch(() => undefined);
        throw new TimeoutError(`Job ${jobId} did not finish within ${Math.round(o.overallTimeoutMs / 1000)} s; it was cancelled`);
      }
      await sleep(nextMs, o.signal);
    }
  }

  /** Waits for the job, then checks its output log; ServerError (with the error log's head) when it failed. */
  async waitForTransferJob(t: TransferJob, o: WaitOptions = {}): Promise<void> {
    const job = await this.waitForJob(t.system, t.jobId, o, transferPollSleeps);
    const call = { signal: o.signal, timeoutMs: o.timeoutMs };
    if (!t.outputLog) {
      if (job.stateClass === 'completed') return;
      throw new ServerError(`Transfer job ${t.jobId} ended ${job.state}`);
    }
    let log: string;
    try {
      log = await this.ops.view(t.system, t.outputLog, call);
    } catch (e) {
      if (e instanceof NotFoundError) throw new ServerError(`Transfer job ${t.jobId} never ran (state ${job.state}): its log ${t.outputLog} does not exist`, { cause: e });
      if (!(e instanceof TooLargeError)) throw e;
      log = (await this.ops.tail(t.system, t.outputLog, { ...call, bytes: 65536 })).content;
    }
    if (SUCCESS_MARKERS.some((m) => log.includes(m))) {
      // A verified job's logs say nothing more, and each transfer would add two files to the
      // user's home folder: they go (a failure to remove them is not the transfer's failure).
      // A failed job's logs stay, for the user to read.
      // Only in the job's own work directory, when the server named one.
      const dir = t.workingDirectory?.replace(/\/+$/, '');
      const ours = (p: string) => TRANSFER_LOG.test(p) && !p.includes('/../') && (!dir || p.slice(0, p.lastIndexOf('/')) === dir);
      await Promise.all([t.outputLog, t.errorLog].filter((p): p is string => !!p && ours(p)).map((p) => this.ops.rm(t.system, p, call).catch(() => undefined)));
      return;
    }
    let errHead = '';
    if (t.errorLog) {
      errHead = await this.ops
        .head(t.system, t.errorLog, { ...call, bytes: 2000 })
        .then((c) => c.content.trim())
        .catch(() => '');
    }
    throw new ServerError(`Transfer job ${t.jobId} failed (state ${job.state})${errHead ? `: ${errHead}` : ''}`, { causedBy: errHead ? [errHead] : undefined });
  }
}
