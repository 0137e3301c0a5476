/** Pure translations of v1 compute task `data` (§2.7.4) into the domain model. */
import { classifyState, isFinalState, setStartTime } from '../jobState';
import { withArray } from '../jobArrays';
import type { ComputeNode, Job, Partition, Reservation } from '../model';

/** A scalar wire value as text ('' for anything else). */
function s(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && !/^(n\/a|none|unknown|\(null\)|not available)$/i.test(v) ? v : undefined;
}

/** `[D-]HH:MM:SS`, `MM:SS` → seconds. */
export function slurmDuration(v: unknown): number | undefined {
  const s = str(v);
  const m = s ? /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$/.exec(s) : null;
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

/** A Slurm timestamp (server local time, read as UTC) → epoch seconds. */
export function slurmTime(v: unknown): number | undefined {
  const s = str(v);
  if (!s || !/^\d{4}-\d\d-\d\dT/.test(s)) return undefined;
  const t = Date.parse(/([zZ]|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(t) ? undefined : Math.floor(t / 1000);
}

/**
 * squeue's `%R` in `nodelist`: the allocated nodes, or, for a job that has none, why in
 * parentheses (`(Dependency)`, `(Priority)`; `(None)` for no reason).
 */
function nodesOrReason(v: unknown): { nodes?: string; reason?: string } {
  const text = str(v);
  const m = text ? /^\((.*)\)$/.exec(text.trim()) : null;
  if (!m) return { nodes: text };
  return { reason: m[1] && m[1] !== 'None' && m[1] !== 'null' ? m[1] : undefined };
}

function base(r: Record<string, unknown>, state: string, exitCode?: number): Job {
  const nodes = Number(r.nodes);
  const where = nodesOrReason(r.nodelist);
  return {
    id: s(r.jobid),
    name: s(r.name),
    state,
    stateClass: classifyState(state, exitCode),
    isFinal: isFinalState(state),
    exitCode,
    partition: str(r.partition),
    user: str(r.user),
    nodes: where.nodes,
    ...(where.reason ? { reason: where.reason } : {}),
    nodeCount: Number.isFinite(nodes) && nodes > 0 ? nodes : undefined,
    ...withArray(s(r.jobid)),
  };
}

/** squeue's QueueJob: `start_time` holds the elapsed time and `time` the start timestamp (swapped on the server). */
export function queueJob(r: Record<string, unknown>): Job {
  const j = base(r, s(r.state));
  j.elapsedSeconds = slurmDuration(r.start_time);
  setStartTime(j, slurmTime(r.time));
  j.stdoutPath = str(r.job_file_out) && !/-not-found$/.test(String(r.job_file_out)) ? String(r.job_file_out) : undefined;
  j.stderrPath = str(r.job_file_err) && !/-not-found$/.test(String(r.job_file_err)) ? String(r.job_file_err) : undefined;
  return j;
}

/** sacct's AcctJob: `exit_code` is `code:signal`. */
export function acctJob(r: Record<string, unknown>): Job {
  const m = /^(\d+):(\d+)$/.exec(s(r.exit_code));
  const j = base(r, s(r.state), m ? Number(m[1]) : undefined);
  j.signal = m && Number(m[2]) > 0 ? Number(m[2]) : undefined;
  setStartTime(j, slurmTime(r.start_time));
  j.endTime = slurmTime(r.termination_time);
  j.elapsedSeconds = slurmDuration(r.elapsed_time);
  return j;
}

export function partition(r: Record<string, unknown>): Partition {
  const cpus = Number(r.TotalCPUs);
  const nodes = Number(r.TotalNodes);
  return {
    name: s(r.PartitionName),
    state: s(r.State).toUpperCase(),
    cpus: Number.isFinite(cpus) ? cpus : undefined,
    totalNodes: Number.isFinite(nodes) ? nodes : undefined,
    isDefault: s(r.Default).toUpperCase() === 'YES',
  };
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? v.split(/[,&]/) : []);

/** v1 nodes carry no CPU counts (`cpus` is 0: unknown). */
export function node(r: Record<string, unknown>): ComputeNode {
  return { name: s(r.NodeName), states: list(r.State).map((s) => s.toUpperCase()), cpus: 0, partitions: list(r.Partitions), features: list(r.ActiveFeatures) };
}

function date(v: unknown): Date {
  return new Date((slurmTime(v) ?? 0) * 1000);
}

/** A compute reservation (`ReservationName`, ...), or a reservations-service one (lower-case keys with flags). */
export function reservation(r: Record<string, unknown>): Reservation {
  const name = r.ReservationName ?? r.reservationname;
  const features = r.Features ?? r.features;
  return {
    name: s(name),
    state: s(r.State ?? r.state).toLowerCase(),
    start: date(r.StartTime ?? r.starttime),
    end: date(r.EndTime ?? r.endtime),
    nodeList: s(r.Nodes ?? r.nodes),
    features: Array.isArray(features) ? features.join('&') : str(features),
    users: r.users !== undefined ? list(r.users).filter((u) => u !== '(null)') : undefined,
    accounts: r.accounts !== undefined ? list(r.accounts).filter((u) => u !== '(null)') : undefined,
    flags: r.flags !== undefined ? list(r.flags) : undefined,
  };
}
