/**
 * What the gateway needs from a batch scheduler. Two implementations: `slurm.ts` (drives the real
 * Slurm commands as the user) and `local.ts` (a small built-in scheduler for machines without Slurm).
 * Records use the v2 wire field names so the routes can return them as they are.
 */
import type { UnixUser } from '../users';

export interface JobSpec {
  /** Inline script text (fed to the scheduler like `sbatch` reads stdin) ... */
  script?: string;
  /** ... or an absolute path of a script readable by the user. */
  scriptPath?: string;
  workingDirectory: string;
  name?: string;
  account?: string;
  partition?: string;
  reservation?: string;
  standardInput?: string;
  standardOutput?: string;
  standardError?: string;
  /** Exported into the job on top of the user's environment (`--export=ALL,K=V`). */
  env: Record<string, string>;
  constraints?: string;
  /** Time limit override in minutes (transfer jobs). */
  timeLimitMinutes?: number;
  /** Run only after this job completed successfully (`--dependency=afterok:ID`). */
  afterOk?: string;
}

export interface JobStatus {
  state: string;
  stateReason: string | null;
  exitCode: number | null;
  interruptSignal: number | null;
}

export interface JobTime {
  elapsed: number | null;
  start: number | null;
  end: number | null;
  suspended: number | null;
  /** seconds */
  limit: number | null;
}

/** The v2 `Job` object, plus what v1 and the gateway itself need. */
export interface JobRecord {
  jobId: string;
  name: string;
  status: JobStatus;
  tasks: { id: string; name: string; status: JobStatus; time: JobTime }[] | null;
  time: JobTime;
  account: string | null;
  allocationNodes: number;
  cluster: string;
  group: string | null;
  nodes: string;
  partition: string;
  killRequestUser: string | null;
  user: string | null;
  workingDirectory: string;
  priority: number | null;
  /** Not on the v2 wire; used by v1 shapes and metadata. epoch seconds. */
  submitTime: number | null;
  /** Not on the v2 wire; v1 acct `time`/`cpu_time` (sacct CPUTimeRAW), seconds. Optional: backends may leave it out. */
  cpuTime?: number | null;
  standardOutput: string | null;
  standardError: string | null;
  standardInput: string | null;
  /**
   * Job arrays: `jobId` stays the task's own numeric id (what scancel and the v2 paths take);
   * these are the array's id and the task's index, or for the tasks not started yet their
   * remaining indexes (`4-9%2`), as squeue's ArrayJobID and ArrayTaskID show them.
   */
  arrayJobId?: string | null;
  arrayTaskId?: string | null;
}

const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|SPECIAL_EXIT|REVOKED)/;

/** True for states a job never leaves (Slurm's, and the built-in scheduler's, which are a subset). */
export function isFinalState(state: string): boolean {
  return FINAL.test(state);
}

/** A job's id as sacct and v1 write it: `12_3` for an array task, `12_[4-9%2]` for the tasks not started. */
export function arrayFormId(j: Pick<JobRecord, 'jobId' | 'arrayJobId' | 'arrayTaskId'>): string {
  if (!j.arrayJobId || !j.arrayTaskId) return j.jobId;
  return /^\d+$/.test(j.arrayTaskId) ? `${j.arrayJobId}_${j.arrayTaskId}` : `${j.arrayJobId}_[${j.arrayTaskId}]`;
}

/** Whether `id` names this record: its own id, its array form, or (for `12`) the array it belongs to. */
export function namesJob(j: JobRecord, id: string): boolean {
  return j.jobId === id || j.arrayJobId === id || (!!j.arrayJobId && arrayFormId(j) === id);
}

export interface JobMetadataRecord {
  jobId: string;
  script: string | null;
  standardInput: string | null;
  standardOutput: string | null;
  standardError: string | null;
}

export interface PartitionRecord {
  name: string;
  cpus: number | null;
  totalNodes: number | null;
  /** Upper-case state, e.g. `UP`. */
  state: string;
  isDefault: boolean;
  /** seconds; null = unlimited */
  maxTime: number | null;
  nodes: string;
}

export interface NodeRecord {
  name: string;
  cpus: number;
  /** Normalised upper-case states (`IDLE`, `ALLOCATED`, `MIXED`, `DOWN`, `DRAIN`, ...). */
  state: string[];
  sockets: number | null;
  cores: number | null;
  threads: number | null;
  cpuLoad: number | null;
  freeMemory: number | null;
  features: string[] | null;
  address: string | null;
  hostname: string | null;
  partitions: string[];
  weight: number | null;
  allocMemory: number | null;
  allocCpus: number | null;
  idleCpus: number | null;
}

export interface ReservationRecord {
  name: string;
  nodeList: string;
  /** epoch seconds */
  startTime: number;
  endTime: number;
  features: string | null;
  /** lower case: `active` / `inactive` */
  state: string;
  users: string[];
  accounts: string[];
  flags: string[];
}

export interface ReservationSpec {
  name: string;
  account?: string;
  users?: string[];
  numberOfNodes?: number;
  nodeType?: string;
  /** epoch seconds */
  startTime: number;
  endTime: number;
  flags?: string[];
}

export interface JobQuery {
  allUsers?: boolean;
  account?: string;
  name?: string;
  /** Finished jobs older than this many seconds are left out (v2 `time_window`). */
  finishedWithinSeconds?: number;
  jobIds?: string[];
  /** Accounting window (epoch seconds), v1 acct. */
  startTime?: number;
  endTime?: number;
}

/**
 * Scheduler failures carry the text the real server would put in its error message, and the HTTP
 * status it would answer with (e.g. 404 job not found, 403 permission denied, 500 otherwise).
 */
export class SchedulerError extends Error {
  constructor(message: string, readonly status: number = 500, readonly stderr?: string) {
    super(message);
    this.name = 'SchedulerError';
  }
}

/**
 * What Slurm's time-window accounting (`sacct -S …`, which window listings use) shows `lagSeconds`
 * after the fact: a job that ended less than that long ago is not in it yet, while a query by job
 * id already has it. The gateway's accounting-lag setting reproduces this (0: no lag).
 */
export function withAccountingLag(jobs: JobRecord[], lagSeconds: number, now = Date.now() / 1000): JobRecord[] {
  if (lagSeconds <= 0) return jobs;
  return jobs.filter((j) => j.time.end === null || j.time.end <= 0 || now - j.time.end >= lagSeconds || !/^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE)/.test(j.status.state));
}

/** Variable names sbatch exports (and a shell can read); the same refusal on every backend. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Refuses a job environment that no shell could export: a bad name, or a NUL in a value. */
export function checkJobEnv(env: Record<string, string>): void {
  for (const [k, v] of Object.entries(env)) {
    if (!ENV_NAME.test(k)) throw new SchedulerError(`Invalid environment variable name: ${k}`, 400);
    if (v.includes('\0')) throw new SchedulerError(`Invalid environment variable value: ${k}`, 400);
  }
}

export interface Scheduler {
  readonly kind: 'slurm' | 'local';
  /** Cluster name as it appears in job records. */
  readonly cluster: string;
  /** Scheduler version string for `/status/systems`. */
  version(): Promise<string>;
  /** Asks the controller whether it answers (`scontrol ping`, what the health checker runs); rejects with why not. */
  ping(): Promise<void>;
  start(): Promise<void>;
  /** Stops what `start` started (the local scheduler kills its running jobs). */
  stop(): Promise<void>;

  /** Submits as `user`; resolves to the new job id. */
  submit(user: UnixUser, spec: JobSpec): Promise<string>;
  /** Active and recently finished jobs visible to `user` (own jobs unless `allUsers`). */
  list(user: UnixUser, query: JobQuery): Promise<JobRecord[]>;
  /** One job by id (any user's, like squeue/sacct), or undefined when the scheduler does not know it. */
  get(user: UnixUser, jobId: string): Promise<JobRecord | undefined>;
  /** Every record `jobId` names (for an array's id: all its tasks), as squeue and sacct find them. */
  lookup(user: UnixUser, jobId: string): Promise<JobRecord[]>;
  metadata(user: UnixUser, jobId: string): Promise<JobMetadataRecord | undefined>;
  /** Cancels as `user`: SchedulerError 404 unknown, 403 another user's job. */
  cancel(user: UnixUser, jobId: string): Promise<void>;
  /** Runs `command` inside the job's allocation as `user`; resolves to its output. */
  attach(user: UnixUser, jobId: string, command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** Job history (sacct-like) for accounting queries. */
  accounting(user: UnixUser, query: JobQuery): Promise<JobRecord[]>;

  partitions(user: UnixUser): Promise<PartitionRecord[]>;
  nodes(user: UnixUser): Promise<NodeRecord[]>;
  reservations(user: UnixUser): Promise<ReservationRecord[]>;
  /** Scheduler accounts the user may charge. */
  accounts(user: UnixUser): Promise<{ name: string; default: boolean }[]>;

  /** v1 reservations management (operator rights); SchedulerError 400 with the scheduler's text on refusal. */
  createReservation(spec: ReservationSpec): Promise<void>;
  updateReservation(spec: ReservationSpec): Promise<void>;
  deleteReservation(name: string): Promise<void>;
}
