/**
 * The data behind the Jobs view: per connection and system, the listing last fetched, grouped by
 * state once per fetch (so expanding a group of 10,000 jobs costs one array walk, no sorting).
 * Which jobs are watched for their end is the JobWatch's (jobWatch.ts); the model tells it what each
 * listing shows and keeps the jobs it found ended by id in the tree.
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
import { isPassing } from '../../common/failureKinds';
import { JobWatch, type JobEnd, type JobWatchOptions } from './jobWatch';

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

export interface JobsModelOptions extends JobWatchOptions {
  /** Poll interval while any job runs (ms). */
  runningMs?: number;
  /** Poll interval while jobs only wait (ms). */
  pendingMs?: number;
  /** Next try after a listing failed for a passing reason (server unreachable, time-out) (ms). */
  retryMs?: number;
}

export class JobsModel implements vscode.Disposable {
  private data: ProfileJobs[] = [];
  private byKey = new Map<string, Job>();
  private readonly ownUser = new Map<string, string>();
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  private readonly _onDidLearnMore = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  /** A job of the user's ended (once per job; an array as one). */
  get onDidFinish(): vscode.Event<JobEnd> {
    return this.watch.onDidFinish;
  }
  /** A listing answered early and the server now has more to show (v1: the window's finished jobs): load again. */
  readonly onDidLearnMore = this._onDidLearnMore.event;
  allUsers = false;
  filter: JobsFilter = {};
  lastUpdated: Date | undefined;
  loaded = false;

  constructor(
    private readonly connections: ConnectionService,
    private readonly opts: JobsModelOptions = {},
    /** Which jobs are watched for their end (the view also looks at them while it is hidden). */
    readonly watch: JobWatch = new JobWatch(connections, opts),
  ) {}

  get profiles(): readonly ProfileJobs[] {
    return this.data;
  }

  job(ref: { profile: string; system: string; jobId: string }): Job | undefined {
    return this.byKey.get(jobKey(ref));
  }

  /** A job submitted from this window: watched for its end even before a listing shows it. */
  track(ref: JobRef): void {
    this.watch.track(ref);
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
    const finished: JobEnd[] = [];
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
          const own = !this.allUsers || this.watch.isWatched(key) || (job.user !== undefined && job.user === this.ownUser.get(`${p.profile}/${s.system}`));
          if (!this.allUsers && job.user) this.ownUser.set(`${p.profile}/${s.system}`, job.user);
          const end = this.watch.listed(ref, job, own);
          if (end) finished.push(end);
        }
      }
    }
    this.data = next;
    this.loaded = true;
    this.lastUpdated = new Date();
    this._onDidChange.fire();
    for (const f of finished) this.watch.announce(f);
  }

  /** Watched jobs missing from the listing (ended beyond its window, or filtered out): ask for them one by one. */
  private async checkVanished(signal: AbortSignal): Promise<void> {
    let ended = false;
    for (const [, ref] of this.watch.unlisted((key) => this.byKey.has(key))) {
      if (!this.data.some((p) => p.profile === ref.profile && p.systems.some((s) => s.system === ref.system && !s.error))) continue;
      try {
        const client = await this.connections.client(ref.profile);
        const job = await client.job(ref.system, ref.jobId, { signal });
        if (this.watch.foundById(ref, job)) ended = true;
      } catch {
        // Not found (yet or any more): a fresh submission may take a moment to show; try next time.
      }
    }
    // Shown at once among the finished jobs, not only when a later listing has it: time-window
    // listings miss a job for a few seconds after it ends, and nothing may be left to poll for.
    if (ended) this.replace(this.data);
  }

  /** Jobs known to have ended (by id) that a listing does not show yet: added to it for a while. */
  private withEnded(next: ProfileJobs[]): ProfileJobs[] {
    const systemOf = (e: JobEnd): SystemJobs | undefined => next.find((p) => p.profile === e.ref.profile)?.systems.find((x) => x.system === e.ref.system);
    const shown = (e: JobEnd): boolean => !!systemOf(e)?.jobs?.some((j) => j.id === e.job.id || j.array?.jobId === e.job.id);
    for (const e of this.watch.recentlyEnded(shown)) {
      const s = systemOf(e);
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
    for (const key of this.watch.keys()) if (!this.byKey.has(key)) return this.opts.runningMs ?? 5_000;
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
    this.watch.dispose();
    this._onDidLearnMore.dispose();
  }
}

