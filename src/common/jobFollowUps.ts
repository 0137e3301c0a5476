/**
 * What to offer when a job submitted from this window ends, beyond Open Output: Sync and Submit
 * adds "Fetch from Cluster". The Jobs view already watches these jobs and says when they end; this
 * is how another feature puts a button on that one notice, without watching the job again.
 * In memory, bounded, taken once.
 */
import { jobKey } from './jobRef';

const MAX = 1000;

export interface JobFollowUp {
  title: string;
  command: string;
  args: unknown[];
}

export class JobFollowUps {
  private readonly byJob = new Map<string, JobFollowUp>();

  set(ref: { profile: string; system: string; jobId: string }, followUp: JobFollowUp): void {
    this.byJob.set(jobKey(ref), followUp);
    if (this.byJob.size > MAX) this.byJob.delete(this.byJob.keys().next().value as string);
  }

  /** The follow-up of a job that ended, removed as it is offered. */
  take(ref: { profile: string; system: string; jobId: string }): JobFollowUp | undefined {
    const key = jobKey(ref);
    const f = this.byJob.get(key);
    this.byJob.delete(key);
    return f;
  }
}
