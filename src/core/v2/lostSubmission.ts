/**
 * A transfer submission (mv, cp) whose answer never came: the request may have reached the server
 * and started the job, or not. Reporting the network error would claim a failure that may not have
 * happened, so the job is looked for among the user's own jobs before anything is reported.
 */
import { TimeoutError } from '../errors';
import { NetworkError } from '../http/transport';
import { sleep } from '../http/sleep';
import type { CallOptions } from '../api';
import type { Job, JobMetadata, TransferJob } from '../model';
import { pollSleeps } from './wait';

/** The job names the v2 server gives its transfer jobs (§3.5). */
export const TRANSFER_JOB_NAMES = { mv: 'MoveFiles', cp: 'CopyFiles' } as const;

/** True when a request failed in a way that leaves open whether the server ran it. */
export function mayHaveArrived(e: unknown): boolean {
  return (e instanceof NetworkError && !e.notSent) || (e instanceof TimeoutError && e.status === undefined);
}

export interface JobLookup {
  jobs(system: string, o?: CallOptions): Promise<Job[]>;
  metadata(system: string, jobId: string, o?: CallOptions): Promise<JobMetadata>;
}

export interface LostSubmission {
  system: string;
  kind: keyof typeof TRANSFER_JOB_NAMES;
  source: string;
  target: string;
  /** Epoch ms when the request was sent (our clock). */
  sentAt: number;
}

/** Clocks of the client and the cluster differ; a job this much older than the request is not ours. */
const CLOCK_SLACK_S = 120;

/**
 * The transfer job the lost submission started, or undefined when none shows up within
 * `lookForMs` (a new job can take a few seconds to appear in the listing of a loaded scheduler).
 * With several candidates, the one whose script names both paths, newest first (ours is normally
 * the newest: one script is fetched); a script once fetched is not fetched again.
 */
export async function findLostTransferJob(api: JobLookup, lost: LostSubmission, o: CallOptions & { lookForMs?: number } = {}): Promise<TransferJob | undefined> {
  const call = { signal: o.signal, timeoutMs: o.timeoutMs };
  const name = TRANSFER_JOB_NAMES[lost.kind];
  const since = lost.sentAt / 1000 - CLOCK_SLACK_S;
  const lookForMs = o.lookForMs ?? 20_000;
  const scripts = new Map<string, JobMetadata>();
  const sleeps = pollSleeps();
  for (const started = Date.now(); ; ) {
    // v2 listings carry no submit time: a job that started before the request was sent is not
    // ours either (an earlier transfer of the same paths would otherwise answer for a lost one).
    const candidates = (await api.jobs(lost.system, call))
      .filter((j) => {
        const at = j.submitTime ?? j.startTime;
        return j.name === name && (at === undefined || at >= since);
      })
      .sort((a, b) => (b.submitTime ?? 0) - (a.submitTime ?? 0) || Number(b.id) - Number(a.id));
    for (const job of candidates) {
      let meta = scripts.get(job.id);
      if (!meta) {
        // A failed fetch is tried again on the next round (a brand-new job may not answer yet).
        meta = await api.metadata(lost.system, job.id, call).catch(() => undefined);
        if (meta?.script !== undefined) scripts.set(job.id, meta);
      }
      const ours = meta?.script === undefined ? candidates.length === 1 : names(meta.script, lost.source) && names(meta.script, lost.target);
      // The logs name the outcome; a listing may leave them out, the metadata has them.
      if (ours) return { jobId: job.id, system: lost.system, workingDirectory: job.workingDirectory, outputLog: meta?.stdoutPath ?? job.stdoutPath, errorLog: meta?.stderrPath ?? job.stderrPath };
      if (Date.now() - started > lookForMs) return undefined;
    }
    const next = sleeps.next().value * 1000;
    if (Date.now() - started + next > lookForMs) return undefined;
    await sleep(next, o.signal);
  }
}

/** The script names `path`, as written or shell-quoted with single quotes. */
function names(script: string, path: string): boolean {
  return script.includes(path) || script.includes(path.replace(/'/g, `'\\''`));
}

/**
 * A job submission whose answer never came (a large array can take sbatch longer than the request
 * may wait): the job whose script is exactly the one sent, listed since the request was sent, or
 * undefined when none shows up within `lookForMs`. An array is looked for by its array id.
 * Reporting a failure instead would make the user submit it a second time.
 */
export async function findLostJob(api: JobLookup, lost: { system: string; script: string; sentAt: number }, o: CallOptions & { lookForMs?: number } = {}): Promise<string | undefined> {
  const call = { signal: o.signal, timeoutMs: o.timeoutMs };
  const since = lost.sentAt / 1000 - CLOCK_SLACK_S;
  const lookForMs = o.lookForMs ?? 20_000;
  const checked = new Set<string>();
  const sleeps = pollSleeps();
  for (const started = Date.now(); ; ) {
    const ids = new Set<string>();
    for (const j of await api.jobs(lost.system, call)) {
      const at = j.submitTime ?? j.startTime;
      if (at !== undefined && at < since) continue;
      ids.add(j.array?.jobId ?? j.id);
    }
    // Newest first: ours is normally the newest.
    for (const id of [...ids].sort((a, b) => Number(b) - Number(a))) {
      if (checked.has(id)) continue;
      const meta = await api.metadata(lost.system, id, call).catch(() => undefined);
      if (meta?.script === undefined) continue;
      checked.add(id);
      if (meta.script === lost.script) return id;
    }
    const next = sleeps.next().value * 1000;
    if (Date.now() - started + next > lookForMs) return undefined;
    await sleep(next, o.signal);
  }
}
