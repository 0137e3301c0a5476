/**
 * The data behind the Jobs view: per connection and system, the listing last fetched, grouped by
 * state once per fetch (so expanding a group of 10,000 jobs costs one array walk, no sorting).
 * It also remembers which of the user's jobs were seen active, to say when one finishes.
 */
import * as vscode from 'vscode';
import { RateLimitedError } from '../../core/errors';
import { isUnreachable, siteOf } from '../../common/reachability';
import type { Job } from '../../core/model';
import { groupArrays } from '../../core/jobArrays';
import { jobKey, type JobRef } from '../../common/jobRef';
import type { RefreshRun } from '../../common/refreshScheduler';
import type { ConnectionService } from '../../common/services';
import type { JobsFilter } from '../../common/viewControls';
import { groupOf, type JobGroup } from '../../common/jobFormat';
import { isTransferJob } from '../../common/transferJobs';
import { isPassing } from '../../common/failureKinds';

export interface SystemJobs {
  profile: string;
  system: string;
  jobs?: Job[];
  /** Grouped by state, an array as one job (`groupArrays`), whose tasks are in `arrays`. */
  groups?: Record<JobGroup, Job[]>;
  /** The tasks of each array, by the array's id, in index order. */
  arrays?: Map<string, Job[]>;
  /** `jobs` with each array as one job: what is watched and announced (one notice per array). */
  units?: Job[];
  error?: unknown;
  /** When (epoch ms) `jobs` were listed: a listing kept under an error is as of then. */
  listedAt?: number;
}

export interface ProfileJobs {
  profile: string;
  systems: SystemJobs[];
  error?: unknown;
  signedIn: boolean;
  /** The site's host, for "Cannot reach <site>". */
  site?: string;
  /** Since when (epoch ms) the server has not answered. */
  unreachableSince?: number;
  /** The API can run commands inside jobs (v2 attach). */
  canAttach?: boolean;
}

export interface JobsModelOptions {
  /** Poll interval while any job runs (ms). */
  runningMs?: number;
  /** Poll interval while jobs only wait (ms). */
  pendingMs?: number;
  /** Next try after a listing failed for a passing reason (server unreachable, time-out) (ms). */
  retryMs?: number;
  /** With the view hidden: how often a running (pending) job this window submitted is looked at (ms). */
  hiddenRunningMs?: number;
  hiddenPendingMs?: number;
}

/** How long a job found ended by id stays in the tree while listings do not show it. */
const ENDED_KEEP_MS = 15 * 60_000;

export class JobsModel implements vscode.Disposable {
  private data: ProfileJobs[] = [];
  private byKey = new Map<string, Job>();
  /** Jobs the user owns that were last seen not final: the candidates for "finished" notices. */
  private readonly watching = new Map<string, JobRef>();
  /** Keys of the jobs this window submitted or was asked to watch (announced even with the view hidden). */
  private readonly ownWatch = new Set<string>();
  /** Jobs found ended by id that the listing did not show (yet): kept in the tree for a while. */
  private readonly endedById = new Map<string, { ref: JobRef; job: Job; at: number }>();
  private readonly ownUser = new Map<string, string>();
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  private readonly _onDidFinish = new vscode.EventEmitter<{ ref: JobRef; job: Job }>();
  private readonly _onDidLearnMore = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  readonly onDidFinish = this._onDidFinish.event;
  /** A listing answered early and the server now has more to show (v1: the window's finished jobs): load again. */
  readonly onDidLearnMore = this._onDidLearnMore.event;
  allUsers = false;
  filter: JobsFilter = {};
  lastUpdated: Date | undefined;
  loaded = false;

  constructor(
    private readonly connections: ConnectionService,
    private readonly opts: JobsModelOptions = {},
  ) {}

  get profiles(): readonly ProfileJobs[] {
    return this.data;
  }

  job(ref: { profile: string; system: string; jobId: string }): Job | undefined {
    return this.byKey.get(jobKey(ref));
  }

  /** A job submitted from this window: watched for its end even before a listing shows it. */
  track(ref: JobRef): void {
    this.watching.set(jobKey(ref), ref);
    this.ownWatch.add(jobKey(ref));
  }

  /** True while a job this window submitted (or was asked to watch) has not ended. */
  get watchingOwn(): boolean {
    for (const key of this.ownWatch) if (this.watching.has(key)) return true;
    return false;
  }

  /**
   * While the view is hidden: only the jobs this window submitted or was asked to watch, each by
   * id, so their end is announced on time. Resolves the delay until the next look, adapted to the
   * jobs (a running job near its limit soon, a pending one later), or undefined when nothing is
   * left to watch (no request at all then).
   */
  async pollOwn(signal: AbortSignal): Promise<number | undefined> {
    let next: number | undefined;
    const soonest = (ms: number): void => { next = next === undefined ? ms : Math.min(next, ms); };
    for (const key of [...this.ownWatch]) {
      const ref = this.watching.get(key);
      if (!ref) {
        this.ownWatch.delete(key);
        continue;
      }
      try {
        const client = await this.connections.client(ref.profile);
        const job = await client.job(ref.system, ref.jobId, { signal });
        if (job.isFinal) {
          this.watching.delete(key);
          this.ownWatch.delete(key);
          this.endedById.set(key, { ref, job, at: Date.now() });
          this._onDidFinish.fire({ ref: { ...ref, job }, job });
        } else if (job.stateClass === 'running') {
          const left = job.timeLimitSeconds !== undefined && job.elapsedSeconds !== undefined ? job.timeLimitSeconds - job.elapsedSeconds : undefined;
          // Every 15 s; in its last half minute, sooner (it ends at its limit at the latest).
          const normal = this.opts.hiddenRunningMs ?? 15_000;
          soonest(left !== undefined && left * 1000 < 2 * normal ? Math.max(2_000, Math.min(normal, left * 500)) : normal);
        } else {
          // A fresh submission usually starts soon; one that has waited a while waits on.
          // (A submit time of 0 is one the server did not report.)
          const waited = job.submitTime ? Date.now() / 1000 - job.submitTime : 0;
          soonest(waited < 120 ? 5_000 : (this.opts.hiddenPendingMs ?? 60_000));
        }
      } catch {
        signal.throwIfAborted();
        // Not known yet (a fresh submission), or the server is away: look again in a while.
        soonest(this.opts.hiddenRunningMs ?? 15_000);
      }
    }
    return next;
  }

  /** Fetches every system of every connection. Throws RateLimitedError (after storing what came) so the scheduler backs off. */
  async load(signal: AbortSignal): Promise<RefreshRun> {
    let rateLimited: RateLimitedError | undefined;
    const next: ProfileJobs[] = [];
    for (const info of this.connections.connections()) {
      const profile = info.profile.name;
      const entry: ProfileJobs = { profile, systems: [], signedIn: info.state !== 'signed-out', site: siteOf(info.profile), unreachableSince: info.unreachableSince };
      next.push(entry);
      try {
        const client = await this.connections.client(profile);
        entry.canAttach = client.capabilities.attach;
        const systems = await this.connections.systems(profile);
        entry.systems = await Promise.all(
          systems.map(async (s): Promise<SystemJobs> => {
            try {
              const jobs = await client.jobs(s.name, { allUsers: this.allUsers, account: this.filter.account || undefined, signal, onMore: () => this._onDidLearnMore.fire() });
              return this.withGroups({ profile, system: s.name, jobs: this.applyFilter(jobs), listedAt: Date.now() });
            } catch (e) {
              if (e instanceof RateLimitedError) rateLimited = e;
              // Keep the previous listing on screen under the error, it is still useful.
              const old = this.data.find((p) => p.profile === profile)?.systems.find((x) => x.system === s.name);
              return { ...old, profile, system: s.name, error: e };
            }
          }),
        );
      } catch (e) {
        if (e instanceof RateLimitedError) rateLimited = e;
        // The server does not answer (not even for its systems): the last listing stays, as of then.
        const old = isUnreachable(e) ? this.data.find((p) => p.profile === profile)?.systems : undefined;
        if (old?.length) entry.systems = old.map((s) => ({ ...s, error: e }));
        else entry.error = e;
      }
    }
    signal.throwIfAborted();
    this.replace(next);
    await this.checkVanished(signal);
    if (rateLimited) throw rateLimited;
    return { nextDelayMs: this.nextDelay() };
  }

  /** Installs a listing directly (the benchmark and `load`). */
  replace(listing: ProfileJobs[]): void {
    const next = this.withEnded(listing);
    const finished: { ref: JobRef; job: Job }[] = [];
    const previous = this.byKey;
    this.byKey = new Map();
    for (const p of next) {
      for (const s of p.systems) {
        if (!s.groups && s.jobs) Object.assign(s, this.withGroups(s));
        for (const job of s.jobs ?? []) {
          if (!job.array) continue;
          const key = jobKey({ profile: p.profile, system: s.system, jobId: job.id });
          // A task's own id is listed only while it is queued or running: remembered after (its output path may need it).
          if (job.array.taskId !== undefined && !job.ownId) job.ownId = previous.get(key)?.ownId;
          this.byKey.set(key, job);
        }
        // An array is watched, and its end announced, as one job.
        for (const job of s.units ?? s.jobs ?? []) {
          const ref = { profile: p.profile, system: s.system, jobId: job.id };
          const key = jobKey(ref);
          this.byKey.set(key, job);
          const own = !this.allUsers || this.watching.has(key) || (job.user !== undefined && job.user === this.ownUser.get(`${p.profile}/${s.system}`));
          if (!this.allUsers && job.user) this.ownUser.set(`${p.profile}/${s.system}`, job.user);
          if (job.isFinal) {
            // The end of a transfer job the extension started itself (a save, an upload) is no news.
            if (this.watching.delete(key) && (!isTransferJob(job) || this.ownWatch.has(key))) finished.push({ ref: { ...ref, job }, job });
          } else if (own) {
            this.watching.set(key, ref);
          }
        }
      }
    }
    this.data = next;
    this.loaded = true;
    this.lastUpdated = new Date();
    this._onDidChange.fire();
    for (const f of finished) this._onDidFinish.fire(f);
  }

  /** Watched jobs missing from the listing (ended beyond its window, or filtered out): ask for them one by one. */
  private async checkVanished(signal: AbortSignal): Promise<void> {
    const missing = [...this.watching.entries()].filter(([k]) => !this.byKey.has(k));
    const ended: string[] = [];
    for (const [key, ref] of missing) {
      if (!this.data.some((p) => p.profile === ref.profile && p.systems.some((s) => s.system === ref.system && !s.error))) continue;
      try {
        const client = await this.connections.client(ref.profile);
        const job = await client.job(ref.system, ref.jobId, { signal });
        if (job.isFinal && this.watching.delete(key)) {
          ended.push(key);
          this.endedById.set(key, { ref, job, at: Date.now() });
          this._onDidFinish.fire({ ref: { ...ref, job }, job });
        }
      } catch {
        // Not found (yet or any more): a fresh submission may take a moment to show; try next time.
      }
    }
    // Shown at once among the finished jobs, not only when a later listing has it: time-window
    // listings miss a job for a few seconds after it ends, and nothing may be left to poll for.
    if (ended.length) this.replace(this.data);
  }

  /** Jobs known to have ended (by id) that a listing does not show yet: added to it for a while. */
  private withEnded(next: ProfileJobs[]): ProfileJobs[] {
    const now = Date.now();
    for (const [key, e] of this.endedById) {
      const s = next.find((p) => p.profile === e.ref.profile)?.systems.find((x) => x.system === e.ref.system);
      if (now - e.at > ENDED_KEEP_MS || s?.jobs?.some((j) => j.id === e.job.id || j.array?.jobId === e.job.id)) {
        this.endedById.delete(key);
        continue;
      }
      if (s && !s.error && this.applyFilter([e.job]).length) Object.assign(s, this.withGroups({ ...s, jobs: [...(s.jobs ?? []), e.job] }));
    }
    return next;
  }

  private withGroups(s: SystemJobs): SystemJobs {
    const groups: Record<JobGroup, Job[]> = { running: [], pending: [], finished: [], transfers: [] };
    const hide = vscode.workspace.getConfiguration('firecrest').get<string>('jobs.transferJobs') === 'hide';
    const { jobs: units, arrays } = groupArrays(s.jobs ?? []);
    for (const job of units) {
      const group = groupOf(job);
      if (group !== 'transfers' || !hide) groups[group].push(job);
    }
    // Newest first: the job that just finished (or the transfer just started) is the one looked for.
    // (A transfer still running has no end yet: it counts as the newest.)
    const newest = (unended: number) => (a: Job, b: Job): number => (b.endTime ?? unended) - (a.endTime ?? unended) || Number(b.id) - Number(a.id);
    groups.finished.sort(newest(0));
    groups.transfers.sort(newest(Number.MAX_SAFE_INTEGER));
    return { ...s, groups, arrays, units };
  }

  private applyFilter(jobs: Job[]): Job[] {
    const { account, name } = this.filter;
    if (!account && !name) return jobs;
    const needle = name?.toLowerCase();
    // The text matches a job's name, id, partition or state.
    const matches = (j: Job): boolean => !needle || [j.name, j.id, j.partition ?? '', j.state].some((v) => v.toLowerCase().includes(needle));
    return jobs.filter((j) => (!account || j.account === account) && matches(j));
  }

  /** Running jobs change fast, pending ones slowly, finished ones never: poll accordingly, or not at all. */
  private nextDelay(): number | undefined {
    // A watched job the listing does not show yet is a fresh submission: look again soon.
    let pending = false;
    for (const key of this.watching.keys()) if (!this.byKey.has(key)) return this.opts.runningMs ?? 5_000;
    for (const p of this.data) {
      for (const s of p.systems) {
        if (s.groups?.running.length) return this.opts.runningMs ?? 5_000;
        if (s.groups?.pending.length) pending = true;
      }
    }
    // A listing that failed for a passing reason (the server down or restarting, a time-out) is
    // asked for again by itself: the view recovers without the user pressing Retry.
    if (this.data.some((p) => isPassing(p.error) || p.systems.some((s) => isPassing(s.error)))) return this.opts.retryMs ?? 10_000;
    return pending ? (this.opts.pendingMs ?? 30_000) : undefined;
  }

  dispose(): void {
    this._onDidChange.dispose();
    this._onDidFinish.dispose();
    this._onDidLearnMore.dispose();
  }
}

