/**
 * A side-car job: a short batch job that runs a standard tool where the data is (grep, sacct,
 * sbatch --test-only, quota, find) and writes its answer to a file, which the client reads by
 * byte offset while the job runs (as Follow Output does) and removes at the end, with the job's
 * error file. Search on Cluster and the facts the API does not give (efficiency, expected start,
 * storage) all run through this one runner: the submission, the wait in the queue, reading by
 * offset, the cancel, the clean-up. What the tool wrote is untrusted: the reader of each kind of
 * answer parses it as data.
 *
 * A side-car answer costs one job and, beyond the wait in the queue, three requests: the
 * submission, the read that finds the whole answer, and the removal of the run's folder.
 */
import { randomBytes } from 'node:crypto';
import type { CallOptions, FirecrestApi } from '../api';
import { isCancellation, NotFoundError, ServerError } from '../errors';
import { sleep } from '../http/sleep';
import type { Job } from '../model';
import { OffsetReader } from '../offsetReader';

/** Files of side-car jobs start so (search leaves them out, and they are easy to tell). */
export const SIDECAR_FILE_PREFIX = '.f7t-search-';
/** Where side-car runs keep their folders, under the user's home on the cluster. */
export function sidecarScratch(home: string): string {
  return `${home.replace(/\/+$/, '')}/.firecrest-vscode/search`;
}

/** Names that mark a partition for data movement: side-cars run there by default. */
const DATA_PARTITION = /^(xfer|transfer|datamover|data-?mover|dm|io)$/i;

/** The partition a side-car runs in: the user's setting, else one named for data movement, else the scheduler's default (undefined). */
export function sidecarPartition(setting: string, partitions: readonly { name: string }[]): string | undefined {
  if (setting) return setting;
  return partitions.find((p) => DATA_PARTITION.test(p.name))?.name;
}

/** Poll cadence while nothing arrives: the first wait, growing by half, up to the last (ms). */
export const SIDECAR_POLL = { firstMs: 250, maxMs: 2000, growth: 1.5 } as const;
/** Bytes of the error file read at most. */
const MAX_ERROR_BYTES = 64 * 1024;

export type SidecarPhase = 'submitting' | 'queued' | 'running' | 'finishing';

export interface SidecarPaths {
  /** The answer. */
  output: string;
  /** What the tool said on stderr. */
  error: string;
  /** The run's own folder, which holds both (the job creates it; the client removes it). */
  scratch: string;
}

export interface SidecarSpec {
  /** What the job is, in messages: "the search", "the efficiency report". */
  what: string;
  /** The job's script, given where its files go. */
  script(paths: SidecarPaths): string;
  /** Job name (a listing shows it). */
  name: string;
}

/** What a finished side-car lets its reader look at before its files go. */
export interface SidecarRun {
  jobId: string;
  /** The job's error file, trimmed (empty when there is none). */
  errorText(): Promise<string>;
}

/** Takes the answer as it arrives. */
export interface SidecarReader {
  /**
   * Text from the answer file: whole lines while the job runs, everything once `final` (the job
   * has ended). `done`: the answer is complete; `stop`: enough was read (the job is cancelled);
   * `more`: read on.
   */
  take(text: string, final: boolean): 'more' | 'done' | 'stop';
  /** After `done`, before the files are removed: may read the error file, and throw. */
  settle?(run: SidecarRun): Promise<void>;
}

export interface SidecarOptions extends CallOptions {
  /** Folder for the job's two files (the job creates it; the files are removed at the end). */
  scratchDir: string;
  /** Where the job runs: an existing folder (the user's home). */
  workingDirectory: string;
  partition?: string;
  account?: string;
  pollMs?: number;
  maxPollMs?: number;
  onSubmitted?(jobId: string): void;
  onPhase?(phase: SidecarPhase): void;
}

export interface SidecarStats {
  jobId: string;
  outcome: 'done' | 'stop';
  /** Requests the run made, bytes of answer it fetched, and the answer's size. */
  requests: number;
  /** Of those, the ones made while waiting (looks that found nothing new, the job's state). */
  waitRequests: number;
  bytesFetched: number;
  outputBytes: number;
}

/**
 * Runs one side-car to its answer (`done`), to enough of it (`stop`), or to `signal`. Throws
 * CancelledError when cancelled (the job is cancelled too), and ServerError with the tool's words
 * when the job ended without a complete answer.
 */
export async function runSidecar(api: FirecrestApi, system: string, spec: SidecarSpec, reader: SidecarReader, o: SidecarOptions): Promise<SidecarStats> {
  const call = { signal: o.signal, timeoutMs: o.timeoutMs };
  const scratch = o.scratchDir.replace(/\/+$/, '');
  const id = randomBytes(6).toString('hex');
  // A folder of its own: one request removes everything the run left.
  const folder = `${scratch}/${SIDECAR_FILE_PREFIX}${id}`;
  const paths: SidecarPaths = { output: `${folder}/out`, error: `${folder}/err`, scratch: folder };
  const stats = { requests: 0, waitRequests: 0, bytesFetched: 0 };
  const counted = <T>(p: Promise<T>): Promise<T> => { stats.requests++; return p; };

  o.onPhase?.('submitting');
  const jobId = await counted(api.submitJob(system, { script: spec.script(paths), workingDirectory: o.workingDirectory, name: spec.name, partition: o.partition, account: o.account }, call));
  o.onSubmitted?.(jobId);
  o.onPhase?.('queued');
  const run: SidecarRun = {
    jobId,
    errorText: async () => {
      try {
        return (await counted(api.view(system, paths.error, { ...call, offset: 0, size: MAX_ERROR_BYTES }))).trim();
      } catch (e) {
        if (isCancellation(e)) throw e;
        return '';
      }
    },
  };
  const offsets = new OffsetReader({ view: (s, p, v) => counted(api.view(s, p, v)) }, system, paths.output);
  let cleaned = false;
  try {
    const outcome = await readToEnd(api, system, spec, reader, o, { offsets, counted, stats, run, call });
    if (outcome === 'done') await reader.settle?.(run);
    if (outcome === 'stop') o.onPhase?.('finishing');
    const outputBytes = offsets.offset;
    cleaned = true;
    await cleanUp(api, system, jobId, paths, outcome === 'done', counted);
    return { jobId, outcome, ...stats, outputBytes };
  } finally {
    // A failure or a cancel: the job is stopped, its files go.
    if (!cleaned) await cleanUp(api, system, jobId, paths, false, counted);
  }
}

interface ReadState {
  offsets: OffsetReader;
  counted: <T>(p: Promise<T>) => Promise<T>;
  stats: { bytesFetched: number; waitRequests: number };
  run: SidecarRun;
  call: CallOptions;
}

async function readToEnd(api: FirecrestApi, system: string, spec: SidecarSpec, reader: SidecarReader, o: SidecarOptions, s: ReadState): Promise<'done' | 'stop'> {
  const firstWait = o.pollMs ?? SIDECAR_POLL.firstMs;
  const maxWait = o.maxPollMs ?? SIDECAR_POLL.maxMs;
  let wait = firstWait;
  let started = false;
  let jobOver = false;
  let quiet = 0;
  for (;;) {
    let grew = false;
    try {
      for (;;) {
        const r = await s.offsets.read({ ...s.call, final: jobOver });
        s.stats.bytesFetched += r.fetched;
        if (r.text === '' && !jobOver) s.stats.waitRequests++;
        if (!started) { started = true; o.onPhase?.('running'); }
        if (r.text !== '' || jobOver) {
          grew ||= r.text !== '';
          const said = reader.take(r.text, jobOver && !r.full);
          if (said !== 'more') return said;
        }
        if (!r.full) break;
      }
    } catch (e) {
      // The job has not opened its file yet (queued), or its folder is not there yet.
      if (!(e instanceof NotFoundError)) throw e;
      s.stats.waitRequests++;
    }
    if (jobOver) throw new ServerError(await failure(api, system, spec, s.run));
    quiet = grew ? 0 : quiet + 1;
    // The job's state is asked for before it started, and when the file has not grown for a while
    // (it may have been stopped: time limit, cancelled from elsewhere).
    if (!started || quiet % 4 === 3) {
      s.stats.waitRequests++;
      const job = await s.counted(api.job(system, s.run.jobId, s.call)).catch((e: unknown) => { if (e instanceof NotFoundError) return undefined; throw e; });
      if (job?.isFinal) {
        jobOver = true;
        continue;
      }
    }
    await sleep(wait, o.signal);
    wait = grew ? firstWait : Math.min(maxWait, Math.round(wait * SIDECAR_POLL.growth));
  }
}

async function failure(api: FirecrestApi, system: string, spec: SidecarSpec, run: SidecarRun): Promise<string> {
  const job: Job | undefined = await api.job(system, run.jobId).catch(() => undefined);
  const text = await run.errorText();
  return `The ${spec.what} job ${run.jobId} ended ${job?.state ?? ''} before it finished${text ? `: ${text.split('\n').slice(0, 3).join('; ')}` : ''}`.replace(/ {2,}/g, ' ');
}

/**
 * A side-car cut short (enough read, a cancel, a failure) stops its job; its files go in every
 * case. A cancelled job may still be starting and open its files after a remove: they are removed
 * once it has ended (the scripts also remove them themselves when cancelled).
 */
async function cleanUp(api: FirecrestApi, system: string, jobId: string, paths: SidecarPaths, complete: boolean, counted: <T>(p: Promise<T>) => Promise<T>): Promise<void> {
  if (!complete) {
    await api.cancelJob(system, jobId).catch(() => undefined);
    // Without the caller's signal (it may be why the run stopped); a job the scheduler no longer
    // knows has ended; after 10 s the files go anyway.
    await api.waitForJob(system, jobId, { overallTimeoutMs: 10_000, notFoundTimeoutMs: 0 }).catch(() => undefined);
  }
  await counted(api.remove(system, paths.scratch)).catch(() => undefined);
}
