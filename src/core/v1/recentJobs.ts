/**
 * The v1 job listing as the v2 one reads: the queue (squeue, where v1 stops) plus the user's jobs
 * that finished within the look-back window (`compute/acct`). sacct costs a task per call, so its
 * answer is reused until a job leaves the queue, a new one shows up, or 30 s passed.
 */
import type { JobListOptions } from '../api';
import type { Job } from '../model';

const WINDOW_S: Record<NonNullable<JobListOptions['timeWindow']>, number> = { '1h': 3600, '8h': 8 * 3600, '24h': 86400, '3d': 3 * 86400, '7d': 7 * 86400 };
const REUSE_MS = 30_000;

interface Cached {
  at: number;
  queued: Set<string>;
  finished: Job[];
}

/** Merges the queue with recently finished jobs, per system and look-back window. */
export class RecentJobs {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly finishedSince: (machine: string, startTime: number, o: JobListOptions) => Promise<Job[]>, private readonly now: () => number = Date.now) {}

  async merge(machine: string, queue: Job[], o: JobListOptions): Promise<Job[]> {
    const window = WINDOW_S[o.timeWindow ?? '24h'];
    const key = `${machine}\n${window}`;
    const ids = new Set(queue.map((j) => j.id));
    const hit = this.cache.get(key);
    const same = hit && hit.queued.size === ids.size && [...ids].every((id) => hit.queued.has(id));
    let finished = hit?.finished ?? [];
    if (!hit || !same || this.now() - hit.at > REUSE_MS) {
      finished = (await this.finishedSince(machine, Math.floor(this.now() / 1000) - window, o)).filter((j) => j.isFinal);
      this.cache.set(key, { at: this.now(), queued: ids, finished });
    }
    // The queue is fresher: a job in both is shown as the queue has it.
    return [...queue, ...finished.filter((j) => !ids.has(j.id))];
  }
}
