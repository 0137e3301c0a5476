/**
 * How commands name a job: a tree node, a notification action and a palette pick all reduce to
 * this. Trees put these fields on their job nodes; commands read them without knowing the tree.
 */
import type { Job } from '../core/model';

export interface JobRef {
  /** Connection profile name. */
  profile: string;
  system: string;
  jobId: string;
  /** The last record seen, when the caller has one (saves a request). */
  job?: Job;
}

/** Reads a JobRef out of a command argument (tree node, JobRef, or `{profile, system, jobId}`). */
export function asJobRef(arg: unknown): JobRef | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as Record<string, unknown>;
  const job = o.job && typeof o.job === 'object' ? (o.job as Job) : undefined;
  const jobId = typeof o.jobId === 'string' ? o.jobId : typeof o.jobId === 'number' ? String(o.jobId) : job?.id;
  if (typeof o.system !== 'string' || !jobId) return undefined;
  return { profile: typeof o.profile === 'string' ? o.profile : '', system: o.system, jobId, job };
}

/** Stable key of a job across refreshes. */
export function jobKey(ref: { profile: string; system: string; jobId: string }): string {
  return `${ref.profile}\u0000${ref.system}\u0000${ref.jobId}`;
}
