/**
 * A search where the data is: grep (or rg) runs on the cluster as a short job with one CPU, its
 * matches go to a file, and the client reads that file by byte offset while the job runs, as
 * Follow Output does: results arrive as they are found and no byte is fetched twice. Nothing stays
 * on the cluster: the job is cancelled when the search is, and its two files are removed at the end.
 */
import { randomBytes } from 'node:crypto';
import type { CallOptions, FirecrestApi } from '../api';
import { InvalidInputError, isCancellation, NotFoundError, PermissionDeniedError, ServerError } from '../errors';
import { sleep } from '../http/sleep';
import { OffsetReader } from '../offsetReader';
import { insideFolder, rangeFinder, SearchOutputParser, type SearchLine } from './searchOutput';
import { DEFAULT_MAX_RESULTS, invalidQuery, SEARCH_FILE_PREFIX, searchScript, type SearchQuery, type SearchTool } from './searchScript';

export type { SearchQuery, SearchTool } from './searchScript';
export { invalidQuery, searchScript } from './searchScript';
export { matchRanges, rangeFinder, SearchOutputParser } from './searchOutput';

export interface SearchMatch extends SearchLine {
  /** [start, end) UTF-16 columns of the query in `text` (empty when they cannot be told). */
  ranges: [number, number][];
}

export type SearchPhase = 'submitting' | 'queued' | 'running' | 'finishing';

export interface SearchRunOptions extends CallOptions {
  /** Folder for the job's two files (created by the job; the files are removed at the end). */
  scratchDir: string;
  /** Where the job runs: an existing folder (the user's home). */
  workingDirectory: string;
  partition?: string;
  account?: string;
  /** Job time limit (default 10 minutes). */
  timeLimitMinutes?: number;
  tool?: SearchTool | 'auto';
  /** First poll interval (ms); it grows to `maxPollMs` while nothing changes. */
  pollMs?: number;
  maxPollMs?: number;
  onSubmitted?(jobId: string): void;
  onPhase?(phase: SearchPhase): void;
  /** New matches, in the order the tool found them. */
  onMatches?(matches: SearchMatch[]): void;
  /** Files searched so far (grep only). */
  onFilesSearched?(files: number): void;
}

export interface SearchSummary {
  jobId: string;
  tool?: string;
  matches: number;
  /** Files searched (grep only). */
  filesSearched?: number;
  /** The result cap was reached and the search stopped there. */
  capped: boolean;
  /** What the tool said about files and folders it could not read, when it still searched the rest. */
  warnings: string[];
  /** Requests the search made, bytes of output it fetched, and the size of that output (for the benchmark). */
  requests: number;
  bytesFetched: number;
  outputBytes: number;
}

/** Poll cadence: the first wait, growing by half while nothing changes, up to the last (ms). */
export const SEARCH_POLL = { firstMs: 250, maxMs: 2000, growth: 1.5 } as const;

/** Bytes of the error file read at most. */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Runs one search to its end (the job ended and its output was read), the cap, or `signal`.
 * Throws InvalidInputError before submitting a query that cannot be searched for, CancelledError
 * when cancelled (the job is cancelled too), and ServerError with the tool's words when the search
 * could not run at all.
 */
// eslint-disable-next-line max-lines-per-function -- one sequence (submit, wait while queued, read the output by offset, end or cancel the job) whose steps share the job, the offsets and the signal; split, each part would need all of them
export async function searchOnCluster(api: FirecrestApi, system: string, q: SearchQuery, o: SearchRunOptions): Promise<SearchSummary> {
  const why = invalidQuery(q);
  if (why) throw new InvalidInputError(why);
  const call = { signal: o.signal, timeoutMs: o.timeoutMs };
  const id = randomBytes(6).toString('hex');
  const scratch = o.scratchDir.replace(/\/+$/, '');
  const outputPath = `${scratch}/${SEARCH_FILE_PREFIX}${id}.out`;
  const errorPath = `${scratch}/${SEARCH_FILE_PREFIX}${id}.err`;
  const cap = q.maxResults ?? DEFAULT_MAX_RESULTS;
  const stats = { requests: 0, bytesFetched: 0 };
  const counted = <T>(p: Promise<T>): Promise<T> => { stats.requests++; return p; };

  o.onPhase?.('submitting');
  const script = searchScript(q, { outputPath, errorPath, scratchDir: scratch, tool: o.tool ?? 'auto', timeLimitMinutes: o.timeLimitMinutes ?? 10 });
  const jobId = await counted(api.submitJob(system, { script, workingDirectory: o.workingDirectory, name: 'f7t-search', partition: o.partition, account: o.account }, call));
  o.onSubmitted?.(jobId);
  o.onPhase?.('queued');

  const ranges = q.filesOnly ? () => [] : rangeFinder(q.pattern, q);
  const reader = new OffsetReader({ view: (s, p, v) => counted(api.view(s, p, v)) }, system, outputPath);
  const parser = new SearchOutputParser();
  const summary: SearchSummary = { jobId, matches: 0, capped: false, warnings: [], requests: 0, bytesFetched: 0, outputBytes: 0 };
  let files = 0;
  /** Results the server gave that are not under the folder searched, and records too long to be results. */
  let outside = 0;
  let overlong = 0;
  let ended = false;
  let jobOver = false;
  let finished = false;
  try {
    const firstWait = o.pollMs ?? SEARCH_POLL.firstMs;
    const maxWait = o.maxPollMs ?? SEARCH_POLL.maxMs;
    let wait = firstWait;
    let started = false;
    let quiet = 0;
    let end: { status: number; findStatus: number } | undefined;
    for (;;) {
      let grew = false;
      try {
        for (;;) {
          const r = await reader.read({ ...call, final: jobOver });
          stats.bytesFetched += r.fetched;
          if (!started) { started = true; o.onPhase?.('running'); }
          if (r.text !== '' || jobOver) {
            const piece = parser.push(r.text, jobOver && !r.full);
            grew ||= r.text !== '';
            overlong += piece.overlong;
            const inside = insideFolder(q.root, piece.lines);
            outside += inside.dropped;
            piece.lines = inside.kept;
            if (piece.tool) summary.tool = piece.tool;
            if (piece.files) { files += piece.files; o.onFilesSearched?.(files); }
            if (piece.lines.length) {
              const room = cap - summary.matches;
              const taken = piece.lines.slice(0, room).map((l) => ({ ...l, ranges: ranges(l.text) }));
              summary.matches += taken.length;
              if (taken.length) o.onMatches?.(taken);
              // At the cap with more to come: stop here (the job is cancelled below).
              if (piece.lines.length > room || (summary.matches >= cap && !piece.end)) summary.capped = true;
            }
            if (piece.end) {
              ended = true;
              end = piece.end;
            }
          }
          if (ended || summary.capped || !r.full) break;
        }
      } catch (e) {
        // The job has not opened its file yet (queued), or a folder the job makes is not there yet.
        if (!(e instanceof NotFoundError)) throw e;
      }
      // (outside the read's try: the end may be a NotFoundError of its own)
      if (end) await endOf(end);
      if (ended || summary.capped) break;
      if (jobOver) {
        // The job ended without the script's last record: it never ran to the end.
        throw new ServerError(await jobFailure());
      }
      quiet = grew ? 0 : quiet + 1;
      // The job's state is asked for before it started, and when the file has not grown for a
      // while (it may have been stopped: time limit, cancelled from elsewhere).
      if (!started || quiet % 4 === 3) {
        const job = await counted(api.job(system, jobId, call)).catch((e: unknown) => { if (e instanceof NotFoundError) return undefined; throw e; });
        if (job?.isFinal) {
          jobOver = true;
          continue;
        }
      }
      await sleep(wait, o.signal);
      wait = grew ? firstWait : Math.min(maxWait, Math.round(wait * SEARCH_POLL.growth));
    }
    if (summary.capped) o.onPhase?.('finishing');
    if (outside) summary.warnings.push(`${outside} result(s) the server gave outside ${q.root} were left out`);
    if (overlong) summary.warnings.push(`${overlong} record(s) longer than any path were left out`);
    finished = true;
    return { ...summary, filesSearched: summary.tool === 'grep' ? files : undefined, ...stats, outputBytes: reader.offset };
  } finally {
    // A search cut short (cap, cancel, failure) stops its job; its files go in every case. A
    // cancelled job may still be starting and open its files after a remove: the files are removed
    // once it has ended (the script also removes them itself when it is cancelled).
    if (!ended || !finished) {
      await api.cancelJob(system, jobId).catch(() => undefined);
      // Without the search's signal (it may be why the search stopped); a job the scheduler no
      // longer knows has ended; after 10 s the files go anyway (the script's trap removes them too).
      await api.waitForJob(system, jobId, { overallTimeoutMs: 10_000, notFoundTimeoutMs: 0 }).catch(() => undefined);
    }
    await Promise.all([api.remove(system, outputPath).catch(() => undefined), api.remove(system, errorPath).catch(() => undefined)]);
  }

  async function errorText(): Promise<string> {
    try {
      const text = await counted(api.view(system, errorPath, { ...call, offset: 0, size: MAX_ERROR_BYTES }));
      return text.trim();
    } catch (e) {
      if (isCancellation(e)) throw e;
      return '';
    }
  }

  async function endOf(end: { status: number; findStatus: number }): Promise<void> {
    const tool = summary.tool ?? 'the search';
    const fine = end.status === 0 || end.status === 1 || end.status === 141;
    if (fine && end.findStatus === 0) return;
    const text = await errorText();
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    if (end.status === 3 || end.status === 4) {
      throw (end.status === 3 ? new NotFoundError(`No folder ${q.root} on ${system}`) : new PermissionDeniedError(`Permission denied: ${q.root} cannot be read on ${system}`));
    }
    // grep/rg with files it could not read still searched the rest: warn, keep the results.
    const unreadable = (end.status === 123 || end.status === 2 || end.findStatus === 1) && (summary.matches > 0 || lines.every((l) => /Permission denied|No such file/i.test(l)));
    if (unreadable) {
      summary.warnings.push(...lines.slice(0, 20));
      return;
    }
    throw new ServerError(`${tool} failed on ${system} (exit status ${end.status})${lines.length ? `: ${lines.slice(0, 5).join('; ')}` : ''}`);
  }

  async function jobFailure(): Promise<string> {
    const job = await api.job(system, jobId).catch(() => undefined);
    const text = await errorText();
    return `The search job ${jobId} ended ${job?.state ?? ''} before the search finished${text ? `: ${text.split('\n').slice(0, 3).join('; ')}` : ''}`.replace(/ {2,}/g, ' ');
  }
}

