/**
 * What a v1 server tells about a job only once: the working directory (known at submission), the
 * output paths (in the submit task and in squeue, never in sacct), and the name (sacct says
 * `allocation` for a job slurmdbd has not recorded yet). Kept per connection for the jobs it
 * submitted or saw queued, so a finished job still has its output, directory and name, as v2's
 * records do. Bounded; lost when the client goes away.
 */
import type { Job } from '../model';

type Facts = Partial<Pick<Job, 'workingDirectory' | 'stdoutPath' | 'stderrPath' | 'name'>>;

/** Names that slurmdbd gives a job it has not recorded yet: never taken over a known one. */
const PLACEHOLDER_NAMES = new Set(['allocation']);

const MAX = 5000;

/** v1 placeholders for a path it does not know. */
export function knownPath(v: unknown): string | undefined {
  return typeof v === 'string' && v.startsWith('/') && !/-not-found$/.test(v) ? v : undefined;
}

export class JobFacts {
  private readonly facts = new Map<string, Facts>();

  remember(machine: string, jobId: string, f: Facts): void {
    const key = `${machine}/${jobId}`;
    const old = this.facts.get(key) ?? {};
    const next: Facts = {
      workingDirectory: f.workingDirectory ?? old.workingDirectory,
      stdoutPath: f.stdoutPath ?? old.stdoutPath,
      stderrPath: f.stderrPath ?? old.stderrPath,
      name: (f.name && !PLACEHOLDER_NAMES.has(f.name) ? f.name : undefined) ?? old.name,
    };
    this.facts.delete(key);
    this.facts.set(key, next);
    if (this.facts.size > MAX) this.facts.delete(this.facts.keys().next().value as string);
  }

  /** Fills what `job` lacks from what was learnt earlier (and learns what it carries). */
  complete(machine: string, job: Job): Job {
    const known = job.name && !PLACEHOLDER_NAMES.has(job.name);
    if (job.workingDirectory || job.stdoutPath || job.stderrPath || known) this.remember(machine, job.id, job);
    const f = this.facts.get(`${machine}/${job.id}`);
    if (!f) return job;
    return { ...job, name: known ? job.name : f.name ?? job.name, workingDirectory: job.workingDirectory ?? f.workingDirectory, stdoutPath: job.stdoutPath ?? f.stdoutPath, stderrPath: job.stderrPath ?? f.stderrPath };
  }
}
