/**
 * A search where the data is: grep (or rg) runs on the cluster as a short job with one CPU, its
 * matches go to a file, and the client reads that file by byte offset while the job runs, as
 * Follow Output does: results arrive as they are found and no byte is fetched twice. Nothing stays
 * on the cluster: the job is cancelled when the search is, and its two files are removed at the end.
 */
import type { FirecrestApi } from '../api';
import { InvalidInputError, NotFoundError, PermissionDeniedError, ServerError } from '../errors';
import { runSidecar, SIDECAR_POLL, type SidecarOptions, type SidecarPhase, type SidecarReader, type SidecarRun, type SidecarSpec } from '../sidecar/sidecar';
import { insideFolder, rangeFinder, SearchOutputParser, type SearchLine } from './searchOutput';
import { DEFAULT_MAX_RESULTS, invalidQuery, searchScript, type SearchQuery, type SearchTool } from './searchScript';

export type { SearchQuery, SearchTool } from './searchScript';
export { invalidQuery, searchScript } from './searchScript';
export { matchRanges, rangeFinder, SearchOutputParser } from './searchOutput';

export interface SearchMatch extends SearchLine {
  /** [start, end) UTF-16 columns of the query in `text` (empty when they cannot be told). */
  ranges: [number, number][];
}

export type SearchPhase = SidecarPhase;

export interface SearchRunOptions extends SidecarOptions {
  /** Job time limit (default 10 minutes). */
  timeLimitMinutes?: number;
  tool?: SearchTool | 'auto';
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

/** Poll cadence: the side-car runner's (kept under this name for the benchmark). */
export const SEARCH_POLL = SIDECAR_POLL;

/**
 * Runs one search to its end (the job ended and its output was read), the cap, or `signal`.
 * Throws InvalidInputError before submitting a query that cannot be searched for, CancelledError
 * when cancelled (the job is cancelled too), and ServerError with the tool's words when the search
 * could not run at all. The job runs through the side-car runner (sidecar/sidecar.ts).
 */
export async function searchOnCluster(api: FirecrestApi, system: string, q: SearchQuery, o: SearchRunOptions): Promise<SearchSummary> {
  const why = invalidQuery(q);
  if (why) throw new InvalidInputError(why);
  const cap = q.maxResults ?? DEFAULT_MAX_RESULTS;
  const ranges = q.filesOnly ? () => [] : rangeFinder(q.pattern, q);
  const parser = new SearchOutputParser();
  const summary: SearchSummary = { jobId: '', matches: 0, capped: false, warnings: [], requests: 0, bytesFetched: 0, outputBytes: 0 };
  const seen = { files: 0, outside: 0, overlong: 0 };
  let end: { status: number; findStatus: number } | undefined;
  const spec: SidecarSpec = {
    what: 'search',
    name: 'f7t-search',
    script: (paths) => searchScript(q, { outputPath: paths.output, errorPath: paths.error, scratchDir: paths.scratch, tool: o.tool ?? 'auto', timeLimitMinutes: o.timeLimitMinutes ?? 10 }),
  };
  const reader: SidecarReader = {
    take(text, final) {
      const piece = parser.push(text, final);
      seen.overlong += piece.overlong;
      const inside = insideFolder(q.root, piece.lines);
      seen.outside += inside.dropped;
      if (piece.tool) summary.tool = piece.tool;
      if (piece.files) { seen.files += piece.files; o.onFilesSearched?.(seen.files); }
      if (inside.kept.length) {
        const room = cap - summary.matches;
        const taken = inside.kept.slice(0, room).map((l) => ({ ...l, ranges: ranges(l.text) }));
        summary.matches += taken.length;
        if (taken.length) o.onMatches?.(taken);
        // At the cap with more to come: stop here (the job is cancelled).
        if (inside.kept.length > room || (summary.matches >= cap && !piece.end)) summary.capped = true;
      }
      if (piece.end) end = piece.end;
      return piece.end ? 'done' : summary.capped ? 'stop' : 'more';
    },
    settle: (run) => endOf(run),
  };
  const stats = await runSidecar(api, system, spec, reader, o);
  if (seen.outside) summary.warnings.push(`${seen.outside} result(s) the server gave outside ${q.root} were left out`);
  if (seen.overlong) summary.warnings.push(`${seen.overlong} record(s) longer than any path were left out`);
  return { ...summary, jobId: stats.jobId, filesSearched: summary.tool === 'grep' ? seen.files : undefined, requests: stats.requests, bytesFetched: stats.bytesFetched, outputBytes: stats.outputBytes };

  async function endOf(run: SidecarRun): Promise<void> {
    if (!end) return;
    const tool = summary.tool ?? 'the search';
    const fine = end.status === 0 || end.status === 1 || end.status === 141;
    if (fine && end.findStatus === 0) return;
    const text = await run.errorText();
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
}
