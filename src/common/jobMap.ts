/**
 * A small in-memory map of what this window knows about its own jobs, keyed by profile, system
 * and job id. Bounded: past `max` entries the oldest is dropped.
 */
import { jobKey } from './jobRef';

type Ref = { profile: string; system: string; jobId: string };

export class JobMap<T> {
  private readonly byJob = new Map<string, T>();

  constructor(private readonly max = 1000) {}

  set(ref: Ref, value: T): void {
    this.byJob.set(jobKey(ref), value);
    if (this.byJob.size > this.max) this.byJob.delete(this.byJob.keys().next().value as string);
  }

  get(ref: Ref): T | undefined {
    return this.byJob.get(jobKey(ref));
  }

  /** The value, removed as it is read. */
  take(ref: Ref): T | undefined {
    const key = jobKey(ref);
    const value = this.byJob.get(key);
    this.byJob.delete(key);
    return value;
  }
}
