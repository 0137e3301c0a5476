/**
 * The v1 job listing as the v2 one reads: the queue (squeue, where v1 stops) plus the user's jobs
 * that finished within the look-back window. sacct over a whole window is paged, one task per
 * page, and slow on a busy cluster; so the whole window is asked for once per system (and again
 * when the window grows), for its newest jobs only. Accounting's time-window query lags a few
 * seconds behind a job's end (sacct --jobs already has it), so an answer may miss a job that just
 * ended; and jobs submitted elsewhere appear only through the window. So the window's recent end
 * is asked for again every `refreshMs` while listings go on: from a little before the last look
 * (CATCH_UP_S), which is one small page. Jobs this connection saw (in those answers, submitted or
 * queued) are asked for by id once they left the queue; that answer is reused until the set
 * changes (or 30 s passed).
 */
import type { JobListOptions } from '../api';
import { isCancellation } from '../errors';
import type { Job } from '../model';

const WINDOW_S: Record<NonNullable<JobListOptions['timeWindow']>, number> = { '1h': 3600, '8h': 8 * 3600, '24h': 86400, '3d': 3 * 86400, '7d': 7 * 86400 };
const REUSE_MS = 30_000;
/** A job that left the queue but has no final sacct record yet (slurmdbd lags) is asked for again, this long at most. */
const LAG_MS = 120_000;
/** Ids asked for at most (one sacct page). */
const MAX_IDS = 100;
/** A window that could not be asked for is asked for again after this long, not at every listing. */
const SEED_RETRY_MS = 60_000;
/** The window's recent end is asked for again this often by default. */
const REFRESH_MS = 30_000;
/** How far before the last look a catch-up starts: longer than accounting ever lags. */
const CATCH_UP_S = 120;

interface Tracked {
  /** Own job ids in the order first seen (submitted or queued), in job id order after the window was asked for. */
  ids: Set<string>;
  /** The last answer, for the departed ids it was asked with; `complete` when each had a final record. */
  asked?: { at: number; key: string; finished: Job[]; complete: boolean };
  /** Departed ids without a final record, since when. */
  lagging: Map<string, number>;
  /** The longest window (s) whose jobs were asked for; the request in flight; when one last failed. */
  seeded: number;
  /** When the last window (or catch-up) request that answered was sent (ms). */
  lookedAt?: number;
  seeding?: { windowS: number; answer: Promise<Job[]>; waiters: Set<() => void> };
  seedFailedAt?: number;
  /** The window's answer that came after listings went on without it (`onMore`): the next listing merges it. */
  ready?: Job[];
}

/** `finished(machine, ids, o)`: the accounting records of those jobs. `recent(machine, startTime, count, o)`: the newest `count` of the user's jobs in sacct since `startTime` (epoch s), oldest first. */
export interface RecentJobsSource {
  finished(machine: string, jobIds: string[], o: JobListOptions): Promise<Job[]>;
  recent(machine: string, startTime: number, count: number, o: JobListOptions): Promise<Job[]>;
}

/** Merges the queue with the recently finished jobs of this connection, per system. */
export class RecentJobs {
  private readonly systems = new Map<string, Tracked>();

  constructor(private readonly source: RecentJobsSource, private readonly now: () => number = Date.now, private readonly refreshMs = REFRESH_MS) {}

  private tracked(machine: string): Tracked {
    let t = this.systems.get(machine);
    if (!t) this.systems.set(machine, (t = { ids: new Set(), lagging: new Map(), seeded: 0 }));
    return t;
  }

  /**
   * The user's jobs of the window, asked for once per system and window (a longer window asks
   * again); undefined when already known. Concurrent listings share one request. Only the newest
   * MAX_IDS: the by-id path keeps no more than that fresh, the view shows the newest first, and a
   * busy user's older jobs would cost a sacct task per page. A failure leaves the listing to the
   * queue and the jobs already tracked; the window is asked for again a minute later.
   */
  private async seed(machine: string, t: Tracked, o: JobListOptions): Promise<Job[] | undefined> {
    if (t.ready) {
      const ready = t.ready;
      t.ready = undefined;
      return ready;
    }
    const windowS = WINDOW_S[o.timeWindow ?? '24h'];
    const now = this.now();
    // The whole window once; afterwards only its recent end, now and then.
    const catchUp = t.seeded >= windowS;
    if (catchUp && (t.lookedAt === undefined || now - t.lookedAt < this.refreshMs)) return undefined;
    if (t.seedFailedAt !== undefined && now - t.seedFailedAt < SEED_RETRY_MS) return undefined;
    if (!t.seeding || t.seeding.windowS < windowS) {
      // Its own signal: a listing that answered early (onMore) may be long settled when this ends.
      const asked = o.onMore ? { ...o, signal: undefined } : o;
      const since = catchUp ? Math.max(Math.floor(now / 1000) - windowS, Math.floor((t.lookedAt ?? now) / 1000) - CATCH_UP_S) : Math.floor(now / 1000) - windowS;
      const pending = { windowS, answer: this.source.recent(machine, since, MAX_IDS, asked), waiters: new Set<() => void>() };
      t.seeding = pending;
      pending.answer.then((jobs) => {
        t.lookedAt = now;
        t.seeded = Math.max(t.seeded, windowS);
        t.seedFailedAt = undefined;
        if (pending.waiters.size > 0) {
          t.ready = jobs;
          for (const waiter of pending.waiters) waiter();
        }
      }, (e: unknown) => {
        if (!isCancellation(e)) t.seedFailedAt = this.now();
      }).finally(() => {
        if (t.seeding === pending) t.seeding = undefined;
      }).catch(() => undefined);
    }
    if (o.onMore) {
      // Answer with the queue and the jobs already known; the window's jobs come with a later listing.
      t.seeding.waiters.add(o.onMore);
      return undefined;
    }
    try {
      return await t.seeding.answer;
    } catch (e) {
      if (isCancellation(e)) throw e;
      return undefined;
    }
  }

  /** A job this connection submitted (it may finish before any listing shows it queued). */
  noteSubmitted(machine: string, jobId: string): void {
    this.tracked(machine).ids.add(jobId);
  }

  async merge(machine: string, queue: Job[], o: JobListOptions): Promise<Job[]> {
    const t = this.tracked(machine);
    const seeded = await this.seed(machine, t, o);
    // Kept in job id order (Slurm's ids grow): the newest are the ones asked for by id.
    if (seeded) t.ids = new Set([...new Set([...seeded.filter((j) => !j.array?.pending).map((j) => j.id), ...t.ids])].sort((a, b) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0)));
    const queued = new Set(queue.map((j) => j.id));
    // Other users' jobs (all-users listings) are shown while queued only.
    // (Not the row of an array's tasks not started, `12_[4-9]`: sacct refuses that id. Its tasks
    // are tracked one by one once they start.)
    for (const j of queue) if (!o.allUsers && !j.array?.pending) t.ids.add(j.id);
    while (t.ids.size > 4 * MAX_IDS) t.ids.delete(t.ids.values().next().value as string);
    const departed = [...t.ids].filter((id) => !queued.has(id)).slice(-MAX_IDS);
    if (departed.length === 0) return queue;
    const key = departed.join(',');
    // The window's answer covers every departed id: no by-id request in the same listing.
    const inSeed = new Map(seeded?.map((j) => [j.id, j]));
    if (seeded && departed.every((id) => inSeed.has(id))) {
      const finished = departed.map((id) => inSeed.get(id) as Job).filter((j) => j.isFinal);
      t.asked = { at: this.now(), key, finished, complete: finished.length === departed.length };
    } else if (!t.asked || t.asked.key !== key || !t.asked.complete || this.now() - t.asked.at > REUSE_MS) {
      const answer = await this.source.finished(machine, departed, o);
      const finished = answer.filter((j) => j.isFinal);
      // An array's id is answered by its tasks: found once none of them is still to end.
      const running = new Set(answer.filter((j) => !j.isFinal && j.array).map((j) => j.array!.jobId));
      const found = new Set(finished.flatMap((j) => (j.array && !running.has(j.array.jobId) ? [j.id, j.array.jobId] : [j.id])));
      for (const id of departed) {
        if (found.has(id)) t.lagging.delete(id);
        else if (!t.lagging.has(id)) t.lagging.set(id, this.now());
        // Never recorded by sacct (or not for us): stop asking.
        else if (this.now() - (t.lagging.get(id) ?? 0) > LAG_MS) {
          t.ids.delete(id);
          t.lagging.delete(id);
        }
      }
      t.asked = { at: this.now(), key, finished, complete: departed.every((id) => found.has(id)) };
    }
    const windowS = WINDOW_S[o.timeWindow ?? '24h'];
    const since = this.now() / 1000 - windowS;
    const recent = t.asked.finished.filter((j) => !queued.has(j.id) && (j.endTime === undefined || j.endTime >= since));
    // Ended before the window: no longer asked for (a longer window asks for them again).
    for (const j of t.asked.finished) {
      if (j.endTime === undefined || j.endTime >= since) continue;
      t.ids.delete(j.id);
      t.seeded = Math.min(t.seeded, windowS);
    }
    return [...queue, ...recent];
  }
}
