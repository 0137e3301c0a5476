/**
 * Streams a growing job output file by byte offset: each request asks only for bytes not yet
 * printed (`view` with offset/size), so a 10 MB output costs about 10 MB on the wire, not the
 * file again per poll. Free of `vscode` so the benchmark runs it from Node.
 *
 * The reading itself is core's OffsetReader: text up to the last newline of each answer, the
 * offset moved by exactly those bytes, exact on servers that slice `view` by characters too.
 */
import * as l10n from '@vscode/l10n';
import type { FirecrestApi } from '../core/api';
import { NotFoundError, isCancellation } from '../core/errors';
import type { Job } from '../core/model';
import { OffsetReader } from '../core/offsetReader';

export type BacklogChoice = 'tail' | 'all' | 'cancel';

export interface StreamerOptions {
  client: Pick<FirecrestApi, 'view' | 'stat' | 'job'>;
  system: string;
  jobId: string;
  path: string;
  signal: AbortSignal;
  /** Job output, exactly as read (newlines untouched). */
  write(text: string): void;
  /** One-line notes for the reader ("waiting for the file…"). */
  note?(text: string): void;
  /** Asked once when the file is already larger than `backlogBytes`. */
  askBacklog?(sizeBytes: number): Promise<BacklogChoice>;
  /** Largest `view` size per request (keep at most half the server's ops limit). */
  chunkBytes?: number;
  backlogBytes?: number;
  tailBytes?: number;
  /** Poll interval while output grows, and the longest interval when idle. */
  fastMs?: number;
  slowMs?: number;
  /** Awaited before each look at the file or the job: reading pauses until it resolves (e.g. while nobody sees the output). */
  ready?(): Promise<void>;
}

export interface StreamResult {
  reason: 'ended' | 'cancelled' | 'stopped';
  job?: Job;
}

export class OutputStreamer {
  readonly stats = { requests: 0, bytesFetched: 0, bytesWritten: 0 };
  private readonly reader: OffsetReader;
  private readonly startedAt = Date.now();

  constructor(private readonly o: StreamerOptions) {
    this.reader = new OffsetReader(o.client, o.system, o.path, o.chunkBytes ?? 1 << 20);
  }

  async run(): Promise<StreamResult> {
    const o = this.o;
    const fast = o.fastMs ?? 1000;
    const slow = o.slowMs ?? 10_000;
    let delay = fast;
    let started = false;
    let waitingNoted = false;
    try {
      for (;;) {
        await o.ready?.();
        if (!started) {
          const size = await this.size();
          if (size === undefined) {
            if (!waitingNoted) o.note?.(l10n.t('waiting for {0} to appear…', o.path));
            waitingNoted = true;
            const job = await this.jobIfFinal();
            if (job) {
              // Ended without ever creating the file (failed early, or output elsewhere).
              if ((await this.size()) === undefined) return { reason: 'ended', job };
            } else {
              await sleep((delay = Math.min(slow, delay * 1.5)), o.signal);
              continue;
            }
          }
          started = true;
          const total = (await this.size()) ?? 0;
          if (total > (o.backlogBytes ?? 50 << 20) && o.askBacklog) {
            const choice = await o.askBacklog(total);
            if (choice === 'cancel') return { reason: 'cancelled' };
            if (choice === 'tail') this.reader.seek(Math.max(0, total - (o.tailBytes ?? 1 << 20)));
          }
        }
        const got = await this.readOnce(false);
        if (got === 'full') continue; // more waiting on the server: read again at once
        if (got === 'some') {
          delay = fast;
        } else {
          const job = await this.jobIfFinal();
          if (job) {
            // The job ended: whatever the file holds now is all there will be.
            while ((await this.readOnce(true)) === 'full');
            return { reason: 'ended', job };
          }
          delay = Math.min(slow, delay * 1.5);
        }
        await sleep(delay, o.signal);
      }
    } catch (e) {
      if (isCancellation(e) || o.signal.aborted) return { reason: 'stopped' };
      throw e;
    }
  }

  /** One request from the current offset. `final` prints a trailing partial line too. */
  private async readOnce(final: boolean): Promise<'none' | 'some' | 'full'> {
    let got;
    try {
      got = await this.reader.read({ final, signal: this.o.signal });
    } catch (e) {
      if (e instanceof NotFoundError) return 'none';
      throw e;
    }
    this.stats.requests++;
    this.stats.bytesFetched += got.fetched;
    if (got.fetched === 0) return 'none';
    if (got.text === '') return got.full ? 'full' : 'none';
    this.stats.bytesWritten += Buffer.byteLength(got.text);
    this.o.write(got.text);
    return got.full ? 'full' : 'some';
  }

  private async size(): Promise<number | undefined> {
    try {
      this.stats.requests++;
      return (await this.o.client.stat(this.o.system, this.o.path, { signal: this.o.signal })).size;
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  /** When a read of the job first found it ended (its exit code may come a moment later). */
  private finalSeenAt: number | undefined;

  private async jobIfFinal(): Promise<Job | undefined> {
    this.stats.requests++;
    try {
      const job = await this.o.client.job(this.o.system, this.o.jobId, { signal: this.o.signal });
      if (!job.isFinal) return undefined;
      // Slurm's live view says a job ended a moment before its accounting has the exit code: the
      // record is read again for up to 10 s, so that the last line can say how it ended.
      this.finalSeenAt ??= Date.now();
      if (job.exitCode === undefined && job.stateClass !== 'cancelled' && Date.now() - this.finalSeenAt < FINAL_RECORD_WAIT_MS) return undefined;
      return job;
    } catch (e) {
      // A job the scheduler no longer knows has ended (no record to tell how); a fresh one may
      // simply not be listed yet, so give it a grace period first.
      if (e instanceof NotFoundError && Date.now() - this.startedAt > 20_000) return { id: this.o.jobId, name: '', state: 'UNKNOWN', stateClass: 'other', isFinal: true };
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }
}

/** How long an ended job's record is read again for its exit code. */
const FINAL_RECORD_WAIT_MS = 10_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException('Aborted', 'AbortError'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new DOMException('Aborted', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
