/**
 * How commands name a job: a tree node, a notification action and a palette pick all reduce to
 * this. Trees put these fields on their job nodes; commands read them without knowing the tree.
 */
import type { Job } from '../core/model';
import { fields, text, textOrNumber, type Field } from './commandArgs';

export interface JobRef {
  /** Connection profile name. */
  profile: string;
  system: string;
  jobId: string;
  /** The last record seen, when the caller has one (saves a request). */
  job?: Job;
}

/** The record a Jobs view row carries (our own object, from our own tree): an id and a state tell it. */
const jobRecord: Field<Job> = (v) => {
  const j = fields(v, { id: text, state: text });
  return j.id !== undefined && j.state !== undefined ? (v as Job) : undefined;
};

/** Reads a JobRef out of a command argument (tree node, JobRef, or `{profile, system, jobId}`). */
export function asJobRef(arg: unknown): JobRef | undefined {
  const o = fields(arg, { profile: text, system: text, jobId: textOrNumber, job: jobRecord });
  const jobId = o.jobId ?? o.job?.id;
  if (o.system === undefined || !jobId) return undefined;
  return { profile: o.profile ?? '', system: o.system, jobId, job: o.job };
}

/** Stable key of a job across refreshes. */
export function jobKey(ref: { profile: string; system: string; jobId: string }): string {
  return `${ref.profile}\u0000${ref.system}\u0000${ref.jobId}`;
}
