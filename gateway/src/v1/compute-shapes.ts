/**
 * The `data` shapes of finished v1 compute tasks (§2.7.4), built from the Scheduler's records in
 * squeue/sacct/scontrol text formats: QueueJob (with the swapped `start_time`/`time` of the real
 * server, Q/5.1 #11), AcctJob, nodes, partitions and reservations.
 */
import { arrayFormId, type JobRecord, type NodeRecord, type PartitionRecord, type ReservationRecord } from '../scheduler/types';

const pad = (n: number): string => String(n).padStart(2, '0');

/** Epoch seconds as Slurm prints times: `YYYY-MM-DDTHH:MM:SS`, local time. */
export function slurmTimestamp(epoch: number | null | undefined, none = 'N/A'): string {
  if (epoch === null || epoch === undefined || epoch <= 0) return none;
  const d = new Date(epoch * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** squeue `%M`/`%L` style: `M:SS`, `H:MM:SS`, `D-HH:MM:SS`. */
export function squeueDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}-${pad(h)}:${pad(m)}:${pad(s % 60)}`;
  if (h > 0) return `${h}:${pad(m)}:${pad(s % 60)}`;
  return `${m}:${pad(s % 60)}`;
}

/** sacct `Elapsed`/`CPUTime` style: `HH:MM:SS` or `D-HH:MM:SS`. */
export function sacctDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hms = `${pad(Math.floor((s % 86400) / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
  return d > 0 ? `${d}-${hms}` : hms;
}

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'PREEMPTED'];

/** squeue lists only jobs that have not finished. */
export function inQueue(job: JobRecord): boolean {
  return !FINAL.some((f) => job.status.state.startsWith(f));
}

function elapsed(job: JobRecord, now: number): number {
  if (job.time.elapsed !== null) return job.time.elapsed;
  return job.time.start ? now - job.time.start : 0;
}

/** File fields of a QueueJob: filled only for the user's own jobs (`userJobs`). */
export interface JobFiles {
  job_file: string;
  job_file_out: string;
  job_file_err: string;
  job_data_out: string;
  job_data_err: string;
  job_info_extra: string;
}

export function queueJob(job: JobRecord, files: JobFiles, now = Math.floor(Date.now() / 1000)): Record<string, string> {
  const pending = job.status.state === 'PENDING';
  const limit = job.time.limit;
  return {
    // squeue %i and sacct's JobID: an array task is `12_3`.
    jobid: arrayFormId(job),
    partition: job.partition,
    name: job.name,
    user: job.user ?? '',
    state: job.status.state,
    // The real server fills start_time with squeue's elapsed time (%M) and time with its start time (%S).
    start_time: squeueDuration(pending ? 0 : elapsed(job, now)),
    time: slurmTimestamp(job.time.start),
    time_left: limit === null ? 'UNLIMITED' : squeueDuration(limit - (pending ? 0 : elapsed(job, now))),
    nodes: String(job.allocationNodes || 1),
    // squeue's %R: the nodes, or a pending job's reason in parentheses (`(Dependency)`).
    nodelist: pending ? `(${job.status.stateReason || 'None'})` : job.nodes,
    ...files,
  };
}

export function acctJob(job: JobRecord, now = Math.floor(Date.now() / 1000)): Record<string, string> {
  const el = job.time.start ? elapsed(job, now) : 0;
  const cpu = job.cpuTime ?? el;
  const end = slurmTimestamp(job.time.end, 'Unknown');
  return {
    // squeue %i and sacct's JobID: an array task is `12_3`.
    jobid: arrayFormId(job),
    partition: job.partition,
    name: job.name,
    user: job.user ?? '',
    state: job.status.state,
    start_time: slurmTimestamp(job.time.start, 'Unknown'),
    time: sacctDuration(cpu),
    cpu_time: sacctDuration(cpu),
    elapsed_time: sacctDuration(el),
    termination_time: end,
    time_left: end,
    nodes: String(job.allocationNodes || 1),
    nodelist: job.nodes || 'None assigned',
    exit_code: `${job.status.exitCode ?? 0}:${job.status.interruptSignal ?? 0}`,
  };
}

export function nodeShape(n: NodeRecord): Record<string, unknown> {
  return { NodeName: n.name, ActiveFeatures: n.features, Partitions: n.partitions, State: n.state };
}

export function partitionShape(p: PartitionRecord): Record<string, string> {
  return {
    PartitionName: p.name,
    State: p.state,
    TotalCPUs: p.cpus === null ? '' : String(p.cpus),
    TotalNodes: p.totalNodes === null ? '' : String(p.totalNodes),
    Default: p.isDefault ? 'YES' : 'NO',
  };
}

export function reservationShape(r: ReservationRecord): Record<string, unknown> {
  return {
    ReservationName: r.name,
    State: r.state.toUpperCase(),
    Nodes: r.nodeList,
    StartTime: slurmTimestamp(r.startTime),
    EndTime: slurmTimestamp(r.endTime),
    Features: r.features ? r.features.split('&') : [],
  };
}
