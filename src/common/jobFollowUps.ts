/**
 * What to offer when a job submitted from this window ends, beyond Open Output: Sync and Submit
 * adds "Fetch from Cluster". The Jobs view already watches these jobs and says when they end; this
 * is how another feature puts a button on that one notice, without watching the job again.
 * In memory, bounded, taken once (`take`).
 */
import { JobMap } from './jobMap';

export interface JobFollowUp {
  title: string;
  command: string;
  args: unknown[];
}

export class JobFollowUps extends JobMap<JobFollowUp> {}
