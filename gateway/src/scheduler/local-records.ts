/**
 * Turns the built-in scheduler's own job and reservation entries into the wire-shaped records of
 * scheduler/types.ts, with the values Slurm would report (`CANCELLED by <uid>`, `<id>.batch` task,
 * times in epoch seconds, limit in seconds, reason `None` once running).
 */
import type { UnixUser } from '../users';
import type { JobQuery, JobRecord, JobStatus, JobTime, ReservationRecord } from './types';
import type { LocalJob, LocalReservation } from './local-state';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL']);

/** Priorities decrease with submission order, in the range Slurm's multifactor plugin uses. */
const PRIORITY_BASE = 4294901760;

export function isFinal(job: LocalJob): boolean {
  return FINAL.has(job.state);
}

const sec = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export function jobRecord(job: LocalJob, cluster: string, node: string, now: number): JobRecord {
  const final = isFinal(job);
  const state = job.state === 'CANCELLED' && job.killRequestUid !== null ? `CANCELLED by ${job.killRequestUid}` : job.state;
  const status: JobStatus = {
    state,
    stateReason: job.reason,
    exitCode: final ? (job.exitCode ?? 0) : null,
    interruptSignal: final ? (job.signal ?? 0) : null,
  };
  const start = sec(job.startTime);
  const end = sec(job.endTime);
  const elapsed = job.startTime === null ? 0 : Math.max(0, Math.floor(((job.endTime ?? now) - job.startTime) / 1000));
  const time: JobTime = { elapsed, start, end, suspended: 0, limit: job.timeLimit };
  const started = job.startTime !== null;
  return {
    jobId: String(job.id),
    name: job.name,
    status,
    tasks: started
      ? [{ id: `${job.id}.batch`, name: 'batch', status: { ...status, state: job.state, stateReason: null }, time: { ...time, limit: null } }]
      : null,
    time,
    account: job.account,
    allocationNodes: started ? 1 : 0,
    cluster,
    group: job.user.group,
    nodes: started ? node : '',
    partition: job.partition,
    killRequestUser: job.killRequestUser,
    user: job.user.name,
    workingDirectory: job.workingDirectory,
    priority: final ? 0 : Math.max(1, PRIORITY_BASE - job.id),
    submitTime: sec(job.submitTime),
    // One CPU per job: CPU time is the elapsed time.
    cpuTime: elapsed,
    standardOutput: job.stdout,
    standardError: job.stderr,
    standardInput: job.stdin,
    ...(job.array ? { arrayJobId: String(job.array.jobId), arrayTaskId: String(job.array.taskId) } : {}),
  };
}

/** The ids a query may name a job by: its own, and for an array task `12_3` and the array's `12`. */
function idsOf(job: LocalJob): string[] {
  return job.array ? [String(job.id), `${job.array.jobId}_${job.array.taskId}`, String(job.array.jobId)] : [String(job.id)];
}

/** The user, account, name and id filters of a job query (own jobs unless `allUsers`). */
export function matchesQuery(job: LocalJob, user: UnixUser, query: JobQuery): boolean {
  return (query.allUsers === true || job.user.uid === user.uid)
    && (!query.account || job.account === query.account)
    && (!query.name || job.name === query.name)
    && (!query.jobIds?.length || idsOf(job).some((id) => query.jobIds!.includes(id)));
}

/** Whether `now` (epoch seconds) falls inside the reservation. */
export function reservationActive(r: LocalReservation, nowSec: number): boolean {
  return nowSec >= r.startTime && nowSec < r.endTime;
}

export function reservationRecord(r: LocalReservation, node: string, nowSec: number): ReservationRecord {
  return {
    name: r.name,
    nodeList: node,
    startTime: r.startTime,
    endTime: r.endTime,
    features: null,
    state: reservationActive(r, nowSec) ? 'active' : 'inactive',
    users: [...r.users],
    accounts: [...r.accounts],
    flags: [...r.flags],
  };
}
