/** Pure translations of validated v2 wire objects into the domain model. */
import { decodeCEscapes } from '../entryNames';
import { classifyState, isFinalState, setStartTime } from '../jobState';
import { arrayInfo } from '../jobArrays';
import type { FileEntry, FileKind, Health, HealthStatus, Job, Partition, ServiceHealth, System } from '../model';
import type { FileWire, JobWire, PartitionWire, SystemWire } from './wire';

/** pyfirecrest's fixed limit for direct (non-staged) transfers. */
export const DIRECT_TRANSFER_LIMIT = 1024 * 1024;
/** The server's default `max_ops_file_size`. */
const DEFAULT_MAX_OPS_FILE_SIZE = 5 * 1024 * 1024;

const KINDS: Record<string, FileKind> = { '-': 'file', d: 'directory', l: 'symlink' };

/** Two ASCII digits at `i`, or -1. */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** `lastModified` has no zone; the server's local time is read as UTC. Unparsable → 0. */
/** The last timestamp read and its value: files of one folder often share their second. */
let lastText = '';
let lastValue = 0;

export function parseLastModified(s: string): number {
  if (s === lastText) return lastValue;
  const v = readLastModified(s);
  lastText = s;
  lastValue = v;
  return v;
}

function readLastModified(s: string): number {
  // The server's own form, YYYY-MM-DDTHH:MM:SS, read without a regex or Date.parse (an ls of 10,000
  // entries reads 10,000 of them). Date.UTC rolls a 31st over like Date.parse does.
  if (s.length === 19 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45 && s.charCodeAt(10) === 84 && s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58) {
    const c = digits2(s, 0);
    const y = digits2(s, 2);
    const mo = digits2(s, 5);
    const d = digits2(s, 8);
    const h = digits2(s, 11);
    const mi = digits2(s, 14);
    const se = digits2(s, 17);
    if (c >= 0 && y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && se >= 0 && se <= 59) {
      return Date.UTC(c * 100 + y, mo - 1, d, h, mi, se);
    }
  }
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s}Z`;
  const t = Date.parse(zoned);
  return Number.isNaN(t) ? 0 : t;
}

/** One `ls` entry (or the single entry chmod/chown/mkdir/symlink answer with). */
export function toFileEntry(f: FileWire): FileEntry {
  const size = typeof f.size === 'number' ? f.size : Number.parseInt(f.size, 10);
  return {
    name: decodeCEscapes(f.name),
    kind: KINDS[f.type] ?? 'other',
    size: Number.isFinite(size) ? size : 0,
    mtime: parseLastModified(f.lastModified),
    permissions: f.permissions,
    owner: f.user,
    group: f.group,
    linkTarget: f.linkTarget ?? undefined,
  };
}

function positive(n: number | null | undefined): number | undefined {
  return typeof n === 'number' && n > 0 ? n : undefined;
}

/** A v2 job record; state lists are joined with `,` as the official client does. */
export function toJob(j: JobWire): Job {
  const status = j.status;
  const state = Array.isArray(status.state) ? status.state.join(',') : status.state;
  const exitCode = status.exitCode ?? undefined;
  const t = j.time;
  const stateClass = classifyState(state, exitCode);
  // One literal of fixed shape (no spreads): a listing builds thousands of these.
  const job: Job = {
    id: j.jobId,
    name: j.name ?? '',
    state,
    stateClass,
    isFinal: isFinalState(state),
    reason: status.stateReason && status.stateReason !== 'None' ? status.stateReason : undefined,
    exitCode,
    signal: status.interruptSignal ?? undefined,
    endTime: positive(t?.end),
    elapsedSeconds: t?.elapsed ?? undefined,
    timeLimitSeconds: positive(t?.limit),
    partition: j.partition ?? undefined,
    account: j.account ?? undefined,
    user: j.user ?? undefined,
    group: j.group ?? undefined,
    nodes: j.nodes || undefined,
    nodeCount: j.allocationNodes ?? undefined,
    cluster: j.cluster ?? undefined,
    workingDirectory: j.workingDirectory ?? undefined,
    priority: j.priority ?? undefined,
  };
  setStartTime(job, positive(t?.start));
  // Only an id with `_` can name an array's task.
  const array = j.jobId.includes('_') ? arrayInfo(j.jobId) : undefined;
  if (array) job.array = array;
  return job;
}

/**
 * Health from `servicesHealth`: nothing reported → unknown; all healthy → ok; ssh down or every
 * service down → down; otherwise degraded.
 */
export function toHealth(s: SystemWire): Health {
  const services: ServiceHealth[] = (s.servicesHealth ?? []).map((h) => ({
    service: h.serviceType,
    healthy: h.healthy === true,
    message: h.message ?? undefined,
    path: h.path ?? undefined,
    latencySeconds: h.latency ?? undefined,
    lastChecked: h.lastChecked ? new Date(h.lastChecked) : undefined,
  }));
  let status: HealthStatus = 'unknown';
  if (services.length) {
    const bad = services.filter((x) => !x.healthy);
    if (bad.length === 0) status = 'ok';
    else if (bad.length === services.length || bad.some((x) => x.service === 'ssh')) status = 'down';
    else status = 'degraded';
  }
  return { status, services, lastChecked: s.lastHealthCheck ? new Date(s.lastHealthCheck) : undefined };
}

/** Names of the failing services, e.g. `filesystem /scratch`, for a degraded system's tooltip. */
export function failingServices(h: Health): string[] {
  return h.services.filter((x) => !x.healthy).map((x) => (x.path ? `${x.service} ${x.path}` : x.service));
}

/** A system; the direct-transfer limit is the smaller of pyfirecrest's 1 MiB and `max_ops_file_size`. */
export function toSystem(s: SystemWire): System {
  const maxOps = s.dataOperation?.max_ops_file_size ?? DEFAULT_MAX_OPS_FILE_SIZE;
  return {
    name: s.name,
    health: toHealth(s),
    fileSystems: (s.fileSystems ?? []).map((f) => ({ path: f.path, dataType: f.dataType, defaultWorkDir: f.defaultWorkDir === true })),
    maxDirectTransferSize: Math.min(DIRECT_TRANSFER_LIMIT, maxOps),
    maxOpsFileSize: s.dataOperation?.max_ops_file_size ?? undefined,
    transferMethod: s.dataOperation?.data_transfer?.serviceType ?? undefined,
    schedulerType: s.scheduler?.type ?? undefined,
    schedulerVersion: s.scheduler?.version ?? undefined,
  };
}

/**
 * Seconds from a Slurm time limit: a number is seconds; `UNLIMITED`/`INFINITE` → Infinity;
 * `[D-]HH:MM:SS`, `MM:SS` or plain minutes as Slurm prints them.
 */
export function parseTimeLimit(v: number | string | null | undefined): number | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'number') return v;
  const s = v.trim().toUpperCase();
  if (s === 'UNLIMITED' || s === 'INFINITE') return Infinity;
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(s);
  if (!m) return undefined;
  const [, d, a, b, c] = m;
  const days = Number(d ?? 0) * 86400;
  if (c !== undefined) return days + Number(a) * 3600 + Number(b) * 60 + Number(c);
  if (b !== undefined) return d ? days + Number(a) * 3600 + Number(b) * 60 : Number(a) * 60 + Number(b);
  return d ? days + Number(a) * 3600 : Number(a) * 60;
}

/** A partition: its state is in the field named `partition` (string or list). */
export function toPartition(p: PartitionWire): Partition {
  const state = Array.isArray(p.partition) ? p.partition.join(',') : p.partition ?? '';
  return {
    name: p.name,
    state: state.toUpperCase(),
    cpus: p.cpus ?? undefined,
    totalNodes: p.totalNodes ?? undefined,
    isDefault: p.isDefault ?? p.default ?? undefined,
    maxTimeSeconds: parseTimeLimit(p.maxTimeSeconds ?? p.maxTime ?? p.timeLimit),
  };
}
