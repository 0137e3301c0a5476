/**
 * The v1 job listing as the v2 one reads: the queue (squeue, where v1 stops) plus the user's jobs
 * that finished within the look-back window. sacct over a whole window is paged, one task per
 * page, and slow on a busy cluster; so only the jobs this connection submitted or saw queued are
 * asked for, by id, once they left the queue, and the answer is reused until that set changes
 * (or 30 s passed).
 */
import type { JobListOptions } from '../api';
import type { Job } from '../model';

const WINDOW_S: Record<NonNullable<JobListOptions['timeWindow']>, number> = { '1h': 3600, '8h': 8 * 3600, '24h': 86400, '3d': 3 * 86400, '7d': 7 * 86400 };
const REUSE_MS = 30_000;
/** A job that left the queue but has no final sacct record yet (slurmdbd lags) is asked for again, this long at most. */
const LAG_MS = 120_000;
/** Ids asked for at most (one sacct page). */
const MAX_IDS = 100;

interface Tracked {
  /** Own job ids in the order first seen (submitted or queued). */
  ids: Set<string>;
  /** The last answer, for the departed ids it was asked with; `complete` when each had a final record. */
  asked?: { at: number; key: string; finished: Job[]; complete: boolean };
  /** Departed ids without a final record, since when. */
  lagging: Map<string, number>;
}

/** Merges the queue with the recently finished jobs of this connection, per system. */
export class RecentJobs {
  private readonly systems = new Map<string, Tracked>();

  /** `finished(machine, ids)`: the accounting records of those jobs. */
  constructor(private readonly finished: (machine: string, jobIds: string[], o: JobListOptions) => Promise<Job[]>, private readonly now: () => number = Date.now) {}

  private tracked(machine: string): Tracked {
    let t = this.systems.get(machine);
    if (!t) this.systems.set(machine, (t = { ids: new Set(), lagging: new Map() }));
    return t;
  }

  /** A job this connection submitted (it may finish before any listing shows it queued). */
  noteSubmitted(machine: string, jobId: string): void {
    this.tracked(machine).ids.add(jobId);
  }

  async merge(machine: string, queue: Job[], o: JobListOptions): Promise<Job[]> {
    const t = this.tracked(machine);
    const queued = new Set(queue.map((j) => j.id));
    // Other users' jobs (all-users listings) are shown while queued only.
    for (const j of queue) if (!o.allUsers) t.ids.add(j.id);
    while (t.ids.size > 4 * MAX_IDS) t.ids.delete(t.ids.values().next().value as string);
    const departed = [...t.ids].filter((id) => !queued.has(id)).slice(-MAX_IDS);
    if (departed.length === 0) return queue;
    const key = departed.join(',');
    if (!t.asked || t.asked.key !== key || !t.asked.complete || this.now() - t.asked.at > REUSE_MS) {
      const finished = (await this.finished(machine, departed, o)).filter((j) => j.isFinal);
      const found = new Set(finished.map((j) => j.id));
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
    const since = this.now() / 1000 - WINDOW_S[o.timeWindow ?? '24h'];
    const recent = t.asked.finished.filter((j) => !queued.has(j.id) && (j.endTime === undefined || j.endTime >= since));
    // Ended before the window: no longer asked for.
    for (const j of t.asked.finished) if (j.endTime !== undefined && j.endTime < since) t.ids.delete(j.id);
    return [...queue, ...recent];
  }
}
