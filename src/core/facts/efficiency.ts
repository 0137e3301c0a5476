/**
 * "Did my job use what it asked for?": one side-car run of `sacct` for many finished jobs gives CPU
 * efficiency (TotalCPU against elapsed × CPUs), memory (the largest MaxRSS of its steps against what
 * it was given) and time (elapsed against the limit), and a right-sized request for the next run:
 * what it used plus a margin, never below what it used. sacct's output is untrusted text, parsed
 * field by field; a line that does not fit is left out.
 */
import { formatTime } from '../sbatch/values';
import type { FirecrestApi } from '../api';
import { InvalidInputError, UnavailableError } from '../errors';
import { shellQuote } from '../shellQuote';
import { sidecarAnswer } from '../sidecar/answer';
import type { SidecarOptions, SidecarStats } from '../sidecar/sidecar';

export interface JobEfficiency {
  jobId: string;
  state: string;
  elapsedSeconds: number;
  timeLimitSeconds?: number;
  cpus: number;
  /** CPU time the job's steps used (user + system). */
  cpuSeconds: number;
  /** cpuSeconds / (elapsed × cpus), 0..1; undefined when the job did not run. */
  cpuEfficiency?: number;
  /** The largest resident memory of any step. */
  maxRssBytes?: number;
  /** The memory the job was given. */
  memoryBytes?: number;
  /** maxRssBytes / memoryBytes. */
  memoryEfficiency?: number;
  /**
   * False while slurmdbd still holds the placeholder row of a job that has just ended (no time
   * limit, no request yet): the figures are not final; ask again in a moment.
   */
  complete: boolean;
}

export const SACCT_FIELDS = ['JobID', 'JobIDRaw', 'State', 'ElapsedRaw', 'TimelimitRaw', 'TotalCPU', 'AllocCPUS', 'ReqMem', 'MaxRSS', 'AllocTRES'] as const;
/** Most jobs one side-car run reports on. */
export const MAX_EFFICIENCY_JOBS = 200;

const UNITS: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40, P: 2 ** 50 };

/** `2048K`, `4000M`, `1.5G`, `4000Mc`/`4000Mn` (older ReqMem), bytes without a unit. */
export function parseSize(text: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGTP])?[cn]?$/i.exec((text ?? '').trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * (m[2] ? UNITS[m[2].toUpperCase()] : 1));
}

/** sacct's TotalCPU: `[DD-][HH:]MM:SS[.mmm]`. */
export function parseCpuTime(text: string | undefined): number | undefined {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec((text ?? '').trim());
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

function tresMemory(tres: string): number | undefined {
  const m = /(?:^|,)mem=([^,]+)/.exec(tres);
  return m ? parseSize(m[1]) : undefined;
}

/**
 * The report of `sacct -P -n --format=<SACCT_FIELDS>`: jobs by the id they were asked by (`12`, or
 * `12_3` for an array task), their steps folded in (a step names its job by its raw id).
 */
export function parseEfficiency(text: string): Map<string, JobEfficiency> {
  const jobs = new Map<string, JobEfficiency>();
  const byRaw = new Map<string, JobEfficiency>();
  const steps: [string, number][] = [];
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length !== SACCT_FIELDS.length) continue;
    const [id, raw, state, elapsed, limit, totalCpu, cpus, reqMem, maxRss, tres] = f;
    if (/^\d+\.[\w-]+$/.test(raw)) {
      const rss = parseSize(maxRss);
      if (rss !== undefined) steps.push([raw.slice(0, raw.indexOf('.')), rss]);
      continue;
    }
    if (!/^\d+$/.test(raw) || !/^\d+(_\d+)?$/.test(id)) continue;
    const e = Number(elapsed);
    const n = Number(cpus);
    const cpu = parseCpuTime(totalCpu) ?? 0;
    const mem = tresMemory(tres) ?? parseSize(reqMem);
    const job: JobEfficiency = {
      jobId: id, state: state.split(' ')[0], elapsedSeconds: Number.isFinite(e) ? e : 0, cpus: Number.isFinite(n) && n > 0 ? n : 1, cpuSeconds: cpu,
      complete: limit !== '',
      ...(/^\d+$/.test(limit) ? { timeLimitSeconds: Number(limit) * 60 } : {}),
      ...(mem ? { memoryBytes: mem } : {}),
    };
    jobs.set(id, job);
    byRaw.set(raw, job);
  }
  for (const [raw, rss] of steps) {
    const j = byRaw.get(raw);
    if (j) j.maxRssBytes = Math.max(j.maxRssBytes ?? 0, rss);
  }
  for (const j of jobs.values()) {
    if (j.elapsedSeconds > 0) j.cpuEfficiency = Math.min(1, j.cpuSeconds / (j.elapsedSeconds * j.cpus));
    if (j.maxRssBytes !== undefined && j.memoryBytes) j.memoryEfficiency = j.maxRssBytes / j.memoryBytes;
  }
  return jobs;
}

/** What the next run should ask for: what this one used plus `margin` (0.25 = 25 %), never below what it used. */
export function rightSize(e: JobEfficiency, margin = 0.25): { mem?: string; time?: string } {
  const out: { mem?: string; time?: string } = {};
  if (e.maxRssBytes !== undefined && e.maxRssBytes > 0) {
    const mib = Math.max(1, Math.ceil((e.maxRssBytes * (1 + margin)) / 2 ** 20));
    out.mem = mib >= 1024 ? `${Math.ceil(mib / 1024)}G` : `${Math.ceil(mib / 64) * 64}M`;
  }
  if (e.elapsedSeconds > 0) {
    // Whole minutes, at least 1, then a round step (5 min up to an hour, 15 min after).
    const min = Math.max(1, Math.ceil((e.elapsedSeconds * (1 + margin)) / 60));
    const rounded = min <= 60 ? Math.ceil(min / 5) * 5 : Math.ceil(min / 15) * 15;
    out.time = formatTime(rounded * 60);
  }
  return out;
}

export interface EfficiencyReport {
  jobs: Map<string, JobEfficiency>;
  /**
   * Whether the cluster records what jobs use (memory, CPU time): false where Slurm's
   * JobAcctGatherType is `jobacct_gather/none` (then only times and requests are known);
   * undefined when the configuration could not be read.
   */
  usageRecorded?: boolean;
  gatherType?: string;
  /** What the side-car cost (jobs, requests). */
  stats?: SidecarStats;
}

/** The side-car's line naming the cluster's JobAcctGatherType (before sacct's report). */
const GATHER = 'F7T-GATHER ';

/**
 * The efficiency of finished jobs (ids as digits or `12_3`), from one side-car job. Throws
 * UnavailableError in words when the cluster keeps no accounting (the built-in scheduler, a site
 * without slurmdbd).
 */
export async function jobEfficiency(api: FirecrestApi, system: string, jobIds: string[], o: SidecarOptions): Promise<EfficiencyReport> {
  const ids = [...new Set(jobIds)];
  if (!ids.length) return { jobs: new Map() };
  if (ids.length > MAX_EFFICIENCY_JOBS) throw new InvalidInputError(`at most ${MAX_EFFICIENCY_JOBS} jobs at once`);
  const bad = ids.find((id) => !/^\d+(_\d+)?$/.test(id));
  if (bad) throw new InvalidInputError(`${bad} is not a Slurm job id`);
  const body = [
    'command -v sacct >/dev/null 2>&1 || { echo "sacct is not available on this cluster" >&2; return 127; }',
    `printf '${GATHER}%s\\n' "$(scontrol show config 2>/dev/null | sed -n 's/^JobAcctGatherType *= *//p')"`,
    `sacct -P -n --jobs=${shellQuote(ids.join(','))} --format=${SACCT_FIELDS.join(',')}`,
  ];
  const a = await sidecarAnswer(api, system, 'efficiency report', 'f7t-facts', body, o);
  if (a.status !== 0) throw new UnavailableError(`job efficiency is not available on ${system}: ${a.errors.split('\n')[0] || `sacct ended with status ${a.status}`}`);
  const gather = new RegExp(`^${GATHER}(.*)$`, 'm').exec(a.text)?.[1]?.trim();
  const jobs = parseEfficiency(a.text);
  const { text: _text, status: _status, errors: _errors, ...stats } = a;
  if (!gather) return { jobs, stats };
  // Slurm shows `jobacct_gather/none` as `(null)` too.
  const usageRecorded = !/(^\(null\)$|(^|\/)none$)/.test(gather);
  if (!usageRecorded) {
    // Without gathering, sacct's TotalCPU and MaxRSS are empty or zero: no efficiency to tell.
    for (const j of jobs.values()) {
      delete j.cpuEfficiency;
      delete j.memoryEfficiency;
      delete j.maxRssBytes;
    }
  }
  return { jobs, usageRecorded, gatherType: gather, stats };
}

/** The script's text with `--mem` and `--time` set (an existing line changed, else one added after the last #SBATCH line). */
export function withRequest(text: string, next: { mem?: string; time?: string }): string {
  const lines = text.split('\n');
  for (const [option, value] of Object.entries(next) as [string, string | undefined][]) {
    if (!value) continue;
    // `--time=1:00`, `--time 1:00`, and for the time also `-t 1:00` / `-t1:00`.
    const long = new RegExp(`^#SBATCH\\s+--${option}(=|\\s+)\\S+`);
    const short = option === 'time' ? /^#SBATCH\s+-t\s*\S+/ : undefined;
    const at = lines.findIndex((l) => long.test(l) || !!short?.test(l));
    if (at >= 0) lines[at] = `#SBATCH --${option}=${value}`;
    else {
      let last = -1;
      lines.forEach((l, i) => { if (l.startsWith('#SBATCH')) last = i; });
      lines.splice(last >= 0 ? last + 1 : lines[0]?.startsWith('#!') ? 1 : 0, 0, `#SBATCH --${option}=${value}`);
    }
  }
  return lines.join('\n');
}
