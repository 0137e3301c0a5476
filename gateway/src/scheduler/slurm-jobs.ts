/**
 * Job records from `squeue` and `sacct`, the way the real v2 server reads them over SSH:
 * parsable text with epoch timestamps (not `--json`: on Slurm 22.05 `sacct --json` reports
 * exit code 0 for FAILED jobs). squeue is slurmctld's live view (all fields right, no exit codes,
 * no steps); sacct is the database (final states with `CANCELLED by <uid>`, exit codes, steps, but
 * a job that just started may be stored as `allocation` with empty fields for a moment).
 */
import type { UnixUser } from '../users';
import { isFinalState, type JobQuery, type JobRecord, type JobStatus, type JobTime } from './types';
import { SEP, durationSeconds, intOrNull, nullish, slurmRun, unexpected } from './slurm-run';

const SQUEUE_FIELDS = ['JobID', 'Name', 'State', 'Reason', 'NumNodes', 'Cluster', 'GroupName', 'UserName', 'Account', 'NodeList',
  'Partition', 'PriorityLong', 'TimeUsed', 'SubmitTime', 'StartTime', 'EndTime', 'TimeLimit', 'WorkDir', 'STDOUT', 'STDERR', 'STDIN',
  'ArrayJobID', 'ArrayTaskID'] as const;
const SACCT_FIELDS = ['JobID', 'JobName', 'State', 'Reason', 'ExitCode', 'AllocNodes', 'Cluster', 'Group', 'User', 'Account', 'NodeList',
  'Partition', 'Priority', 'ElapsedRaw', 'Submit', 'Start', 'End', 'Suspended', 'TimelimitRaw', 'WorkDir', 'CPUTimeRAW', 'JobIDRaw'] as const;

type Row<F extends readonly string[]> = Record<F[number], string>;


function rows<F extends readonly string[]>(fields: F, text: string): Row<F>[] {
  const out: Row<F>[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(SEP)) continue;
    const cols = line.split(SEP);
    const row = {} as Record<string, string>;
    fields.forEach((f, i) => { row[f] = (cols[i] ?? '').trim(); });
    out.push(row as Row<F>);
  }
  return out;
}

function epoch(v: string): number | null {
  const n = intOrNull(v);
  return n === null || n <= 0 ? null : n;
}

/** `3:0` -> exit code 3, signal 0. */
function exitOf(v: string): { exitCode: number | null; interruptSignal: number | null } {
  const m = /^(\d+):(\d+)$/.exec(v);
  return m ? { exitCode: Number(m[1]), interruptSignal: Number(m[2]) } : { exitCode: null, interruptSignal: null };
}

/**
 * Expands the filename patterns sbatch understands (`%j`, `%A`, `%a`, `%x`, `%u`, `%N`, ...). `%A`
 * is the array's id and `%a` the task's index (for a job outside an array: its id, and NO_VAL).
 */
export function expandPattern(path: string, job: { jobId: string; name: string; user: string | null; nodes: string; arrayJobId?: string | null; arrayTaskId?: string | null }): string {
  const task = job.arrayTaskId && /^\d+$/.test(job.arrayTaskId) ? job.arrayTaskId : '4294967294';
  return path.replace(/%(\d*)([%AajJxuNnts])/g, (_all, pad: string, c: string) => {
    const width = pad ? Number(pad) : 0;
    const num = (n: string): string => n.padStart(width, '0');
    switch (c) {
      case '%': return '%';
      case 'A': return num(job.arrayJobId ?? job.jobId);
      case 'j': case 'J': return num(job.jobId);
      case 'a': return num(task);
      case 'x': return job.name;
      case 'u': return job.user ?? '';
      case 'N': return job.nodes.split(/[,[]/)[0] ?? '';
      default: return num('0');
    }
  });
}

/** squeue's ArrayJobID and ArrayTaskID (`N/A` outside an array). */
function arrayOf(arrayJobId: string, arrayTaskId: string): { arrayJobId: string; arrayTaskId: string } | undefined {
  return /^\d+$/.test(arrayJobId) && arrayTaskId && arrayTaskId !== 'N/A' ? { arrayJobId, arrayTaskId } : undefined;
}

function fromSqueue(r: Row<typeof SQUEUE_FIELDS>, cluster: string): JobRecord {
  const record: JobRecord = {
    jobId: r.JobID,
    name: r.Name,
    status: { state: r.State, stateReason: nullish(r.Reason) ?? 'None', exitCode: null, interruptSignal: null },
    tasks: null,
    time: {
      elapsed: durationSeconds(r.TimeUsed),
      // A pending job's StartTime is slurmctld's estimate (or N/A): reported as its start, as the real servers do.
      start: epoch(r.StartTime),
      end: isFinalState(r.State) ? epoch(r.EndTime) : null,
      suspended: 0,
      limit: durationSeconds(r.TimeLimit),
    },
    account: nullish(r.Account),
    allocationNodes: intOrNull(r.NumNodes) ?? 0,
    cluster: nullish(r.Cluster) ?? cluster,
    group: nullish(r.GroupName),
    nodes: r.NodeList,
    partition: r.Partition,
    killRequestUser: null,
    user: nullish(r.UserName),
    workingDirectory: r.WorkDir,
    priority: intOrNull(r.PriorityLong),
    submitTime: epoch(r.SubmitTime),
    standardOutput: null,
    standardError: null,
    standardInput: null,
    ...arrayOf(r.ArrayJobID, r.ArrayTaskID),
  };
  const expand = (p: string): string | null => (nullish(p) === null ? null : expandPattern(p, record));
  record.standardOutput = expand(r.STDOUT);
  record.standardError = expand(r.STDERR);
  record.standardInput = expand(r.STDIN);
  return record;
}

function sacctTime(r: Row<typeof SACCT_FIELDS>, final: boolean): JobTime {
  return {
    elapsed: intOrNull(r.ElapsedRaw),
    start: epoch(r.Start),
    end: final ? epoch(r.End) : null,
    suspended: durationSeconds(r.Suspended) ?? 0,
    limit: intOrNull(r.TimelimitRaw) === null ? null : Number(r.TimelimitRaw) * 60,
  };
}

/** sacct's JobID of an array task (`12_3`) or of the tasks not started (`12_[4-9%2]`). */
const SACCT_ARRAY = /^(\d+)_(?:(\d+)|\[(.+)\])$/;

function fromSacct(lines: Row<typeof SACCT_FIELDS>[], cluster: string, userOf: (uid: number) => string | null): JobRecord[] {
  // Keyed by the raw id: an array task's JobID is `12_3`, its JobIDRaw its own id (and its steps `15.batch`).
  const jobs = new Map<string, JobRecord>();
  for (const r of lines) {
    const raw = r.JobIDRaw || r.JobID;
    const dot = raw.indexOf('.');
    if (dot >= 0) {
      const parent = jobs.get(raw.slice(0, dot));
      if (!parent) continue;
      const status: JobStatus = { state: r.State, stateReason: null, ...exitOf(r.ExitCode) };
      (parent.tasks ??= []).push({ id: r.JobID, name: r.JobName, status, time: sacctTime(r, isFinalState(r.State)) });
      continue;
    }
    // Heterogeneous job members (`12+1`) are not addressable through v2 routes.
    if (!/^\d+$/.test(raw)) continue;
    const array = SACCT_ARRAY.exec(r.JobID);
    const by = /^CANCELLED by (\d+)$/.exec(r.State);
    jobs.set(raw, {
      jobId: raw,
      name: r.JobName,
      status: { state: r.State, stateReason: nullish(r.Reason), ...exitOf(r.ExitCode) },
      tasks: null,
      time: sacctTime(r, isFinalState(r.State)),
      account: nullish(r.Account),
      allocationNodes: intOrNull(r.AllocNodes) ?? 0,
      cluster: nullish(r.Cluster) ?? cluster,
      group: nullish(r.Group),
      nodes: r.NodeList === 'None assigned' ? '' : r.NodeList,
      partition: r.Partition,
      killRequestUser: by ? userOf(Number(by[1])) ?? by[1] : null,
      user: nullish(r.User),
      workingDirectory: r.WorkDir,
      priority: intOrNull(r.Priority),
      submitTime: epoch(r.Submit),
      cpuTime: intOrNull(r.CPUTimeRAW),
      standardOutput: null,
      standardError: null,
      standardInput: null,
      ...(array ? { arrayJobId: array[1], arrayTaskId: array[2] ?? array[3] } : {}),
    });
  }
  return [...jobs.values()];
}

/** 0 pending, 1 started (running, completing, suspended, ...), 2 final. */
function progress(state: string): number {
  if (isFinalState(state)) return 2;
  return state === 'PENDING' ? 0 : 1;
}

/**
 * One job from both sources. Descriptive fields come from squeue while slurmctld still holds the
 * job (the database row can be incomplete for a moment). For the status, sacct wins as on the real
 * server (it alone has `CANCELLED by <uid>` and exit codes), unless squeue is further along: slurmdbd
 * learns that a job started or ended a little after slurmctld does, and a job must not look
 * pending after it started.
 */
function merge(sq: JobRecord | undefined, sa: JobRecord | undefined): JobRecord {
  if (!sq) return sa!;
  if (!sa) return sq;
  const useSacct = progress(sa.status.state) >= progress(sq.status.state);
  return {
    ...sq,
    status: useSacct ? sa.status : sq.status,
    killRequestUser: useSacct ? sa.killRequestUser : null,
    tasks: sa.tasks,
    // (The database knows no start estimate of a pending job: slurmctld's stays.)
    time: useSacct ? { ...sa.time, limit: sa.time.limit ?? sq.time.limit, start: sa.time.start ?? sq.time.start } : sq.time,
    allocationNodes: useSacct && sa.allocationNodes > 0 ? sa.allocationNodes : sq.allocationNodes,
    nodes: sq.nodes || sa.nodes,
    cpuTime: sa.cpuTime,
    // slurmctld knows which indexes are still waiting; the database learns it later.
    arrayJobId: sq.arrayJobId ?? sa.arrayJobId,
    arrayTaskId: sq.arrayTaskId ?? sa.arrayTaskId,
  };
}

export interface JobSources {
  /** Run squeue (slurmctld's live jobs, including those finished within MinJobAge). */
  squeue: boolean;
  /** Run sacct with these extra arguments (time window or job ids); undefined = skip sacct. */
  sacctArgs?: string[];
  /** sacct `--allocations`: the jobs without their steps (v1's `sacct -X`; steps cost most of sacct's time). */
  allocationsOnly?: boolean;
}

/** Runs squeue and/or sacct concurrently as `user` and merges their records. */
export async function queryJobs(user: UnixUser, query: JobQuery, sources: JobSources, cluster: string,
  userOf: (uid: number) => string | null): Promise<JobRecord[]> {
  const filters = (sacct: boolean): string[] => {
    const f: string[] = [];
    if (query.account) f.push(`--account=${query.account}`);
    if (query.name) f.push(`--name=${query.name}`);
    if (query.jobIds?.length) f.push(`--jobs=${query.jobIds.join(',')}`);
    if (sacct ? query.allUsers || query.jobIds?.length : !query.allUsers && !query.jobIds?.length) {
      f.push(sacct ? '--allusers' : `--user=${user.name}`);
    }
    return f;
  };
  const squeueP = sources.squeue
    ? slurmRun(user, ['squeue', '--noheader', '--states=all', ...filters(false),
      `--Format=${SQUEUE_FIELDS.map((f) => `${f}:${SEP}`).join(',')}`])
    : undefined;
  const sacctP = sources.sacctArgs
    ? slurmRun(user, ['sacct', '--noheader', '--parsable2', `--delimiter=${SEP}`, ...filters(true), ...(sources.allocationsOnly ? ['--allocations'] : []), ...sources.sacctArgs,
      `--format=${SACCT_FIELDS.join(',')}`])
    : undefined;
  const [sq, sa] = await Promise.all([squeueP, sacctP]);

  const live = new Map<string, JobRecord>();
  if (sq) {
    // A job id slurmctld has already forgotten is not an error, just no live record.
    if (sq.exitCode !== 0 && !/Invalid job id/i.test(sq.stderr)) throw unexpected(sq);
    for (const r of rows(SQUEUE_FIELDS, sq.stdout)) {
      if (/^\d+$/.test(r.JobID)) live.set(r.JobID, fromSqueue(r, cluster));
    }
  }
  const stored = new Map<string, JobRecord>();
  if (sa) {
    if (sa.exitCode !== 0 && !/Invalid job id/i.test(sa.stderr)) throw unexpected(sa);
    for (const j of fromSacct(rows(SACCT_FIELDS, sa.stdout), cluster, userOf)) stored.set(j.jobId, j);
  }
  const ids = new Set([...live.keys(), ...stored.keys()]);
  return [...ids].sort((a, b) => Number(a) - Number(b)).map((id) => merge(live.get(id), stored.get(id)));
}
