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
 *
 * A job is tracked by its id, an array's tasks by the array's id (sacct answers it with every
 * task): an array of a thousand tasks is one of the MAX_IDS asked for, not a thousand, so it never
 * pushes the user's other finished jobs out of the listing. The jobs this connection submitted
 * are asked for first; the others fill what is left of MAX_IDS, the newest first.
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
  /** Own jobs by key (`keyOf`) in the order first seen (submitted or queued), in job id order after the window was asked for. */
  ids: Set<string>;
  /** The keys this connection submitted. */
  submitted: Set<string>;
  /** Per array (its key), the tasks seen queued: one that left the queue has ended. */
  tasks: Map<string, Set<string>>;
  /** The last answer, for the departed keys it was asked with; `complete` when each had its final records. */
  asked?: { at: number; key: string; finished: Job[]; complete: boolean };
  /** Departed keys without a final record, since when. */
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
    if (!t) this.systems.set(machine, (t = { ids: new Set(), submitted: new Set(), tasks: new Map(), lagging: new Map(), seeded: 0 }));
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
    const t = this.tracked(machine);
    t.ids.add(jobId);
    t.submitted.add(jobId);
  }

  async merge(machine: string, queue: Job[], o: JobListOptions): Promise<Job[]> {
    const t = this.tracked(machine);
    const seeded = await this.seed(machine, t, o);
    // Kept in job id order (Slurm's ids grow): the newest are the ones asked for by id.
    if (seeded) t.ids = new Set([...new Set([...seeded.map(keyOf), ...t.ids])].sort(byJobId));
    const queued = new Set(queue.map((j) => j.id));
    // Per job or array in the queue, how many tasks (a row of an array's tasks not started counts each).
    const inQueue = new Map<string, number>();
    for (const j of queue) inQueue.set(keyOf(j), (inQueue.get(keyOf(j)) ?? 0) + (j.array?.pending ? j.array.count : 1));
    const arrays = new Set(queue.filter((j) => j.array).map(keyOf));
    // Other users' jobs (all-users listings) are shown while queued only.
    if (!o.allUsers) {
      for (const j of queue) {
        const key = keyOf(j);
        t.ids.add(key);
        // (Not the row of an array's tasks not started, `12_[4-9]`: its tasks are seen once they start.)
        if (j.array && !j.array.pending) {
          const seen = t.tasks.get(key) ?? new Set<string>();
          t.tasks.set(key, seen.add(j.id));
        }
      }
    }
    while (t.ids.size > 4 * MAX_IDS) forget(t, t.ids.values().next().value as string);
    // The tasks of each array seen to leave the queue.
    const goneOf = new Map<string, string[]>();
    for (const [key, seen] of t.tasks) goneOf.set(key, [...seen].filter((id) => !queued.has(id)));
    const gone = (key: string): string[] => goneOf.get(key) ?? [];
    // A job that left the queue; an array still in it of which a task did, or that this connection
    // submitted (its tasks may end before a listing sees them).
    const departed = newest([...t.ids].filter((id) => !inQueue.has(id) || gone(id).length > 0 || (t.submitted.has(id) && arrays.has(id))), t.submitted);
    if (departed.length === 0) return queue;
    // Asked for again when fewer tasks of an array are queued (a task that leaves lowers the count).
    const key = departed.map((id) => `${id}:${inQueue.get(id) ?? 0}`).join(',');
    // Whether accounting's answer has the end of a job: each task seen to leave the queue has its
    // final record, and, when nothing of it is queued any more, every record is final.
    const recorded = (id: string, byKey: Map<string, Job[]>): { done: boolean; final: number } => {
      const records = byKey.get(id) ?? [];
      const final = new Set(records.filter((j) => j.isFinal).map((j) => j.id));
      const done = gone(id).every((task) => final.has(task)) && (inQueue.has(id) || (records.length > 0 && final.size === records.length));
      return { done, final: final.size };
    };
    // The window's answer covers every departed job that is not an array (it may hold only some
    // tasks of one): no by-id request in the same listing.
    const inSeed = new Map(seeded?.map((j) => [j.id, j]));
    if (seeded && departed.every((id) => inSeed.has(id) && !inSeed.get(id)!.array && !t.tasks.has(id))) {
      const finished = departed.map((id) => inSeed.get(id) as Job).filter((j) => j.isFinal);
      t.asked = { at: this.now(), key, finished, complete: finished.length === departed.length };
    } else if (!t.asked || t.asked.key !== key || !t.asked.complete || this.now() - t.asked.at > REUSE_MS) {
      const answer = await this.source.finished(machine, departed, o);
      const byKey = new Map<string, Job[]>();
      for (const j of answer) {
        const records = byKey.get(keyOf(j));
        if (records) records.push(j);
        else byKey.set(keyOf(j), [j]);
      }
      let complete = true;
      for (const id of departed) {
        const { done, final } = recorded(id, byKey);
        if (done) {
          t.lagging.delete(id);
          continue;
        }
        const since = t.lagging.get(id);
        if (since === undefined) t.lagging.set(id, this.now());
        if (since === undefined || this.now() - since <= LAG_MS) complete = false;
        // Never recorded by sacct (or not for us): no longer asked for. (Tasks that never got a final
        // record: the array is listed as it is, and asked for with the others.)
        else if (final === 0 && !inQueue.has(id)) forget(t, id);
      }
      t.asked = { at: this.now(), key, finished: answer.filter((j) => j.isFinal), complete };
    }
    const windowS = WINDOW_S[o.timeWindow ?? '24h'];
    const since = this.now() / 1000 - windowS;
    const recent = t.asked.finished.filter((j) => !queued.has(j.id) && (j.endTime === undefined || j.endTime >= since));
    // Ended before the window (an array: every task of it): no longer asked for (a longer window asks for them again).
    const inWindow = new Set(recent.map(keyOf));
    for (const j of t.asked.finished) {
      const id = keyOf(j);
      if (inWindow.has(id) || inQueue.has(id) || !t.ids.has(id)) continue;
      forget(t, id);
      t.seeded = Math.min(t.seeded, windowS);
    }
    return [...queue, ...recent];
  }
}

/** The key a job is tracked and asked for by: its array's id for an array's task, else its own. */
function keyOf(j: Job): string {
  return j.array?.jobId ?? j.id;
}

function byJobId(a: string, b: string): number {
  return (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0);
}

function forget(t: Tracked, key: string): void {
  t.ids.delete(key);
  t.submitted.delete(key);
  t.tasks.delete(key);
  t.lagging.delete(key);
}

/** At most MAX_IDS of `keys` (in job id order), the newest: those this connection submitted first. */
function newest(keys: string[], submitted: Set<string>): string[] {
  const own = keys.filter((k) => submitted.has(k)).slice(-MAX_IDS);
  const room = MAX_IDS - own.length;
  const others = room > 0 ? keys.filter((k) => !submitted.has(k)).slice(-room) : [];
  const chosen = new Set([...own, ...others]);
  return keys.filter((k) => chosen.has(k));
}
