/**
 * What a v1 server tells about a job only once: the working directory (known at submission), the
 * output paths (in the submit task and in squeue, never in sacct), and the name, partition and
 * account (sacct says `allocation` and leaves the partition and account empty for a job slurmdbd
 * has not recorded yet: found on the real v1 server). Kept per connection for the jobs it
 * submitted or saw queued, so a finished job still has its output, directory and name, as v2's
 * records do. Bounded; lost when the client goes away.
 */
import type { Job } from '../model';
import { BoundedMap } from '../boundedMap';

type Places = Partial<Pick<Job, 'workingDirectory' | 'stdoutPath' | 'stderrPath'>>;
/** What every record says (and a record of a job slurmdbd has not recorded yet leaves out). */
type Labels = Partial<Pick<Job, 'name' | 'partition' | 'account'>>;
type Facts = Places & Labels;

/** Names that slurmdbd gives a job it has not recorded yet: never taken over a known one. */
const PLACEHOLDER_NAMES = new Set(['allocation']);

const MAX = 5000;

/** v1 placeholders for a path it does not know. */
export function knownPath(v: unknown): string | undefined {
  return typeof v === 'string' && v.startsWith('/') && !/-not-found$/.test(v) ? v : undefined;
}

/**
 * Where a job runs and writes and what it is called, kept apart: the places come only from
 * submissions and queue records, the names from every record, so an accounting answer of
 * thousands of finished jobs (each with a name) pushes out names, never the places of the jobs
 * this connection submitted or saw queued.
 */
export class JobFacts {
  private readonly places = new BoundedMap<Places>(MAX);
  private readonly labels = new BoundedMap<Labels>(MAX);

  remember(machine: string, jobId: string, f: Facts): void {
    const key = `${machine}/${jobId}`;
    if (f.workingDirectory || f.stdoutPath || f.stderrPath) {
      const old = this.places.get(key) ?? {};
      this.places.set(key, { workingDirectory: f.workingDirectory ?? old.workingDirectory, stdoutPath: f.stdoutPath ?? old.stdoutPath, stderrPath: f.stderrPath ?? old.stderrPath });
    }
    const name = f.name && !PLACEHOLDER_NAMES.has(f.name) ? f.name : undefined;
    if (name || f.partition || f.account) {
      const old = this.labels.get(key);
      const next = { name: name ?? old?.name, partition: f.partition || old?.partition, account: f.account || old?.account };
      if (!old || old.name !== next.name || old.partition !== next.partition || old.account !== next.account) this.labels.set(key, next);
    }
  }

  /** Fills what `job` lacks from what was learnt earlier (and learns what it carries). */
  complete(machine: string, job: Job): Job {
    this.remember(machine, job.id, job);
    const key = `${machine}/${job.id}`;
    const p = this.places.get(key);
    const l = this.labels.get(key);
    const name = job.name && !PLACEHOLDER_NAMES.has(job.name) ? job.name : l?.name ?? job.name;
    const partition = job.partition || l?.partition;
    const account = job.account || l?.account;
    if (!p && name === job.name && partition === job.partition && account === job.account) return job;
    const out: Job = { ...job, name };
    if (partition) out.partition = partition;
    if (account) out.account = account;
    if (p) Object.assign(out, { workingDirectory: job.workingDirectory ?? p.workingDirectory, stdoutPath: job.stdoutPath ?? p.stdoutPath, stderrPath: job.stderrPath ?? p.stderrPath });
    return out;
  }
}
