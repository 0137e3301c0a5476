/**
 * Which of the user's jobs are watched for their end, and the end of each announced once. A job is
 * watched from when a listing shows it active (or this window submits it) until a listing, or a
 * look by id, finds it ended. With the Jobs view hidden, only the jobs this window submitted are
 * looked at, each by id, at a rate that fits them (a running job near its limit soon, a pending one
 * later); nothing to watch means no timer and no request. Jobs found ended by id stay listed for a
 * while (`recentlyEnded`), as time-window listings miss them for a few seconds.
 */
import * as vscode from 'vscode';
import type { Job } from '../../core/model';
import { messageOf } from '../../core/errors';
import { jobKey, type JobRef } from '../../common/jobRef';
import type { ConnectionService, Log } from '../../common/services';
import { isTransferJob } from '../../common/transferJobs';

/** How long a job found ended by id stays in the tree while listings do not show it. */
const ENDED_KEEP_MS = 15 * 60_000;
/** With the view hidden: the first look at a job this window submitted, and the next after a failure. */
const HIDDEN_FIRST_MS = 5_000;
const HIDDEN_RETRY_MS = 30_000;

export interface JobWatchOptions {
  /** With the view hidden: how often a running (pending) job this window submitted is looked at (ms). */
  hiddenRunningMs?: number;
  hiddenPendingMs?: number;
}

export interface JobEnd {
  ref: JobRef;
  job: Job;
}

export class JobWatch implements vscode.Disposable {
  /** Jobs the user owns that were last seen not final: the candidates for "finished" notices. */
  private readonly watching = new Map<string, JobRef>();
  /** Keys of the jobs this window submitted or was asked to watch (announced even with the view hidden). */
  private readonly own = new Set<string>();
  /** Jobs found ended by id that the listing did not show (yet): kept in the tree for a while. */
  private readonly endedById = new Map<string, JobEnd & { at: number }>();
  private readonly _onDidFinish = new vscode.EventEmitter<JobEnd>();
  readonly onDidFinish = this._onDidFinish.event;
  private hiddenTimer: NodeJS.Timeout | undefined;
  private hiddenDue = 0;
  private hiddenAbort: AbortController | undefined;

  constructor(
    private readonly connections: ConnectionService,
    private readonly opts: JobWatchOptions = {},
  ) {}

  /** A job submitted from this window: watched for its end even before a listing shows it. */
  track(ref: JobRef): void {
    this.watching.set(jobKey(ref), ref);
    this.own.add(jobKey(ref));
  }

  /** True while a job this window submitted (or was asked to watch) has not ended. */
  get watchingOwn(): boolean {
    for (const key of this.own) if (this.watching.has(key)) return true;
    return false;
  }

  isWatched(key: string): boolean {
    return this.watching.has(key);
  }

  keys(): IterableIterator<string> {
    return this.watching.keys();
  }

  /**
   * A listing shows the job: an active job of the user's (`own`) is watched from now on; a watched
   * one that ended is news, except a transfer job the extension started itself (a save, an upload).
   */
  listed(ref: JobRef, job: Job, own: boolean): JobEnd | undefined {
    const key = jobKey(ref);
    if (job.isFinal) {
      if (this.watching.delete(key) && (!isTransferJob(job) || this.own.has(key))) return { ref: { ...ref, job }, job };
    } else if (own) {
      this.watching.set(key, ref);
    }
    return undefined;
  }

  /** Says that a job ended (once it is in the listing, or found by id). */
  announce(end: JobEnd): void {
    this._onDidFinish.fire(end);
  }

  /** Watched jobs a listing does not show, for a look by id. */
  unlisted(isListed: (key: string) => boolean): [string, JobRef][] {
    return [...this.watching.entries()].filter(([k]) => !isListed(k));
  }

  /** A look by id found the job: when it ended and was still watched, it is kept and announced (true). */
  foundById(ref: JobRef, job: Job): boolean {
    const key = jobKey(ref);
    if (!job.isFinal || !this.watching.delete(key)) return false;
    this.own.delete(key);
    this.endedById.set(key, { ref, job, at: Date.now() });
    this.announce({ ref: { ...ref, job }, job });
    return true;
  }

  /** Jobs found ended by id, while they are kept; `shown` ones (a listing has them now) are forgotten. */
  recentlyEnded(shown: (end: JobEnd) => boolean): JobEnd[] {
    const now = Date.now();
    const out: JobEnd[] = [];
    for (const [key, e] of this.endedById) {
      if (now - e.at > ENDED_KEEP_MS || shown(e)) this.endedById.delete(key);
      else out.push(e);
    }
    return out;
  }

  /**
   * Looks at the jobs this window submitted, each by id, so that their end is announced on time.
   * Resolves the delay until the next look, or undefined when nothing is left to watch.
   */
  async pollOwn(signal: AbortSignal): Promise<number | undefined> {
    let next: number | undefined;
    const soonest = (ms: number): void => { next = next === undefined ? ms : Math.min(next, ms); };
    for (const key of [...this.own]) {
      const ref = this.watching.get(key);
      if (!ref) {
        this.own.delete(key);
        continue;
      }
      try {
        const client = await this.connections.client(ref.profile);
        const job = await client.job(ref.system, ref.jobId, { signal });
        if (!this.foundById(ref, job)) soonest(this.nextLook(job));
      } catch {
        signal.throwIfAborted();
        // Not known yet (a fresh submission), or the server is away: look again in a while.
        soonest(this.opts.hiddenRunningMs ?? 15_000);
      }
    }
    return next;
  }

  /** When to look again at an active job: every 15 s while it runs (sooner in its last half minute); a fresh submission soon. */
  private nextLook(job: Job): number {
    const normal = this.opts.hiddenRunningMs ?? 15_000;
    if (job.stateClass === 'running') {
      const left = job.timeLimitSeconds !== undefined && job.elapsedSeconds !== undefined ? job.timeLimitSeconds - job.elapsedSeconds : undefined;
      return left !== undefined && left * 1000 < 2 * normal ? Math.max(2_000, Math.min(normal, left * 500)) : normal;
    }
    // A fresh submission usually starts soon; one that has waited a while waits on. (A submit time of 0 is one the server did not report.)
    const waited = job.submitTime ? Date.now() / 1000 - job.submitTime : 0;
    return waited < 120 ? 5_000 : (this.opts.hiddenPendingMs ?? 60_000);
  }

  /**
   * While the view is hidden (`visible()` false), the jobs this window submitted are still looked at,
   * so that a job's end is announced when it happens, not when the view is opened next.
   */
  watchHidden(visible: () => boolean, log: Log, delayMs = HIDDEN_FIRST_MS): void {
    if (visible() || !this.watchingOwn) return;
    // A look already due sooner stands; one due later (a job pending for long) gives way.
    if (this.hiddenTimer && this.hiddenDue <= Date.now() + delayMs) return;
    clearTimeout(this.hiddenTimer);
    this.hiddenDue = Date.now() + delayMs;
    this.hiddenTimer = setTimeout(() => {
      this.hiddenTimer = undefined;
      if (visible()) return;
      const ctl = new AbortController();
      this.hiddenAbort = ctl;
      this.pollOwn(ctl.signal).then(
        (next) => {
          log.debug(`hidden view: looked at the jobs this window submitted; next look ${next === undefined ? 'none (nothing to watch)' : `in ${next} ms`}`);
          if (next !== undefined && !ctl.signal.aborted) this.watchHidden(visible, log, next);
        },
        (e: unknown) => {
          log.debug(`hidden view: looking at the submitted jobs failed (${messageOf(e)}); again in ${HIDDEN_RETRY_MS} ms`);
          if (!ctl.signal.aborted) this.watchHidden(visible, log, HIDDEN_RETRY_MS);
        },
      ).finally(() => { if (this.hiddenAbort === ctl) this.hiddenAbort = undefined; });
    }, delayMs);
  }

  /** The view is visible again: its own refreshes take over. */
  stopHidden(): void {
    clearTimeout(this.hiddenTimer);
    this.hiddenTimer = undefined;
    this.hiddenAbort?.abort();
    this.hiddenAbort = undefined;
  }

  dispose(): void {
    this.stopHidden();
    this._onDidFinish.dispose();
  }
}
