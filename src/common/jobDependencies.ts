/**
 * The dependencies of the jobs submitted from this window (`--dependency`, chosen with Run after…):
 * job listings do not carry them, so the Jobs view learns them here to say what a pending job
 * waits for. In memory, bounded; a reload forgets them (the job's details still show its script).
 */
import { jobKey } from './jobRef';

const MAX = 1000;

export class JobDependencies {
  private readonly byJob = new Map<string, string>();

  set(ref: { profile: string; system: string; jobId: string }, dependency: string): void {
    this.byJob.set(jobKey(ref), dependency);
    if (this.byJob.size > MAX) this.byJob.delete(this.byJob.keys().next().value as string);
  }

  get(ref: { profile: string; system: string; jobId: string }): string | undefined {
    return this.byJob.get(jobKey(ref));
  }
}
