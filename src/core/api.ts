/**
 * The API-neutral client interface. Every feature (file system, trees, commands, webviews) talks
 * to a FirecREST deployment through this and only this; `v2/` and `v1/` implement it. Adding v1 or
 * the staged transfers must not change a caller.
 */
import type {
  ApiVersion,
  Checksum,
  CompressionType,
  ComputeNode,
  FileContent,
  FileEntry,
  FileStat,
  Job,
  JobMetadata,
  JobSubmission,
  Partition,
  Progress,
  Reservation,
  System,
  TransferJob,
  UserInfo,
} from './model';

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the call; the promise rejects with CancelledError. */
  signal?: AbortSignal;
  /** Per-request timeout in ms (default from the client options). */
  timeoutMs?: number;
}

export interface ListOptions extends CallOptions {
  showHidden?: boolean;
  recursive?: boolean;
  dereference?: boolean;
  numericUid?: boolean;
}

export interface HeadTailOptions extends CallOptions {
  /** Exactly one of bytes or lines (default: 10 lines). */
  bytes?: number;
  lines?: number;
  /** head: all but the last N; tail: from byte/line N on. */
  skip?: boolean;
}

export interface JobListOptions extends CallOptions {
  allUsers?: boolean;
  account?: string;
  name?: string;
  /** v2 >= 2.5.7: look-back for finished jobs. */
  timeWindow?: '1h' | '8h' | '24h' | '3d' | '7d';
  /**
   * Only the jobs in the queue (pending, running) are wanted, as for a partition's load: v1 then
   * asks its accounting nothing for finished jobs. v2 lists finished ones of `timeWindow` anyway.
   */
  queueOnly?: boolean;
  /**
   * Answer with what is known now, and call this once a later listing will show more. On v1 the
   * finished jobs of the look-back window take a few accounting requests; a view lists the queue at
   * once and lists again when they arrived. Without it the listing waits for them.
   */
  onMore?: () => void;
}

export interface AccountingQuery extends CallOptions {
  jobIds?: string[];
  /** epoch seconds */
  startTime?: number;
  endTime?: number;
  allUsers?: boolean;
  account?: string;
  name?: string;
}

export interface WaitOptions extends CallOptions {
  /** Overall limit in ms; on expiry the job is cancelled (wait-for-job semantics) and TimeoutError thrown. */
  overallTimeoutMs?: number;
  /** A new job may be missing this long before that is an error (default 20 s). */
  notFoundTimeoutMs?: number;
  /** Polls may fail to reach the server (restart, dropped connection) this long before the wait fails (default 90 s). */
  unreachableToleranceMs?: number;
  onProgress?: (p: Progress) => void;
}

export interface MoveCopyOptions extends WaitOptions {
  account?: string;
  dereference?: boolean;
  /** When false, return as soon as the server accepted the job. Default true. */
  wait?: boolean;
}

export interface CompressOptions extends MoveCopyOptions {
  compression?: CompressionType;
  matchPattern?: string;
}

/** Large transfers (staged through object storage). Implemented in `core/transfer`. */
export interface TransferOptions extends CallOptions {
  account?: string;
  onProgress?: (p: Progress) => void;
  /** Parallel parts (default 10). */
  parallelism?: number;
}

/** What one connection can do. Methods a version lacks throw NotSupportedError; `capabilities` says which. */
export interface FirecrestApi {
  readonly apiVersion: ApiVersion;
  readonly capabilities: Capabilities;

  /** Server version: `F7T-AppVersion` (v2), `/status/parameters` (v1; 1.15.0 when absent). */
  serverVersion(opts?: CallOptions): Promise<string | undefined>;

  // --- status
  systems(opts?: CallOptions): Promise<System[]>;
  partitions(system: string, opts?: CallOptions): Promise<Partition[]>;
  nodes(system: string, opts?: CallOptions): Promise<ComputeNode[]>;
  reservations(system: string, opts?: CallOptions): Promise<Reservation[]>;
  userInfo(system: string, opts?: CallOptions): Promise<UserInfo>;

  // --- files (synchronous operations)
  list(system: string, path: string, opts?: ListOptions): Promise<FileEntry[]>;
  stat(system: string, path: string, opts?: CallOptions & { dereference?: boolean }): Promise<FileStat>;
  head(system: string, path: string, opts?: HeadTailOptions): Promise<FileContent>;
  tail(system: string, path: string, opts?: HeadTailOptions): Promise<FileContent>;
  /** Text view of a byte range (v2 size/offset; v1 reads the whole small file). */
  view(system: string, path: string, opts?: CallOptions & { offset?: number; size?: number }): Promise<string>;
  checksum(system: string, path: string, opts?: CallOptions): Promise<Checksum>;
  fileType(system: string, path: string, opts?: CallOptions): Promise<string>;
  chmod(system: string, path: string, mode: string, opts?: CallOptions): Promise<FileEntry | undefined>;
  chown(system: string, path: string, owner: string, group: string, opts?: CallOptions): Promise<FileEntry | undefined>;
  mkdir(system: string, path: string, opts?: CallOptions & { parents?: boolean }): Promise<void>;
  symlink(system: string, target: string, linkPath: string, opts?: CallOptions): Promise<void>;
  /** Recursive delete; falls back to the job-backed delete when the direct one times out. */
  remove(system: string, path: string, opts?: WaitOptions & { account?: string }): Promise<void>;
  /** Whole small file (at most `System.maxDirectTransferSize`). */
  downloadSmall(system: string, path: string, opts?: CallOptions): Promise<Uint8Array>;
  /** Writes (creates or overwrites) `directory/fileName` with small content. */
  uploadSmall(system: string, directory: string, fileName: string, data: Uint8Array, opts?: CallOptions): Promise<void>;
  /** Direct rename (v1) or job-backed mv (v2), waited for and checked unless `wait: false`. */
  move(system: string, source: string, target: string, opts?: MoveCopyOptions): Promise<TransferJob | undefined>;
  copy(system: string, source: string, target: string, opts?: MoveCopyOptions): Promise<TransferJob | undefined>;
  compress(system: string, source: string, target: string, opts?: CompressOptions): Promise<TransferJob | undefined>;
  extract(system: string, source: string, targetDir: string, opts?: CompressOptions): Promise<TransferJob | undefined>;

  // --- jobs
  submitJob(system: string, job: JobSubmission, opts?: CallOptions): Promise<string>;
  jobs(system: string, opts?: JobListOptions): Promise<Job[]>;
  /** One job; NotFoundError when unknown. */
  job(system: string, jobId: string, opts?: CallOptions): Promise<Job>;
  jobMetadata(system: string, jobId: string, opts?: CallOptions): Promise<JobMetadata>;
  cancelJob(system: string, jobId: string, opts?: CallOptions): Promise<void>;
  /**
   * One task of an array (a Job with `array.taskId`), or its row of tasks not started, leaving the
   * others running. v1 takes `12_3` and `12_[4-9]`; v2 only a task's own id, when the server listed
   * one (NotSupportedError otherwise, saying to cancel the whole array by its id with `cancelJob`).
   */
  cancelJobTask(system: string, task: Job, opts?: CallOptions): Promise<void>;
  /** v2: runs a command inside the job's allocation. */
  attachToJob(system: string, jobId: string, command: string, opts?: CallOptions): Promise<void>;
  /** Polls until the job reaches a final state (wait-for-job semantics of the official client). */
  waitForJob(system: string, jobId: string, opts?: WaitOptions): Promise<Job>;
  /** Waits for a transfer job and checks its log; throws ServerError when it did not succeed. */
  waitForTransferJob(job: TransferJob, opts?: WaitOptions): Promise<void>;
  /** Job history (v1 compute/acct, v2 job listing). */
  accounting(system: string, query: AccountingQuery): Promise<Job[]>;
}

export interface Capabilities {
  attach: boolean;
  /** A direct (synchronous) rename exists (v1). */
  directRename: boolean;
  reservationsManagement: boolean;
  tasks: boolean;
  jobScriptPath: boolean;
  /** The scheduler's copy of a job's script comes back with its metadata (v2; Show Details, Resubmit). */
  jobScript: boolean;
  /** Partition/reservation overrides on submit. */
  submitOverrides: boolean;
}

/** v1 internal transfer jobs (`/storage/xfer-internal/<kind>`). */
export type V1InternalTransferKind = 'cp' | 'mv' | 'rsync' | 'rm' | 'compress' | 'extract';

export interface V1InternalTransferOptions {
  /** Not used by `rm`. */
  sourcePath?: string;
  targetPath: string;
  jobName?: string;
  /** Slurm time limit (`M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`). */
  time?: string;
  /** Run after this job succeeded (`afterok`). */
  stageOutJobId?: string;
  account?: string;
  dereference?: boolean;
  /** extract: the archive type as the server takes it (`.gz`, `.tgz`, `.bz2`, `.tar`, `.zip`). */
  type?: string;
}

/** A v1 task as listed by `GET /tasks`. */
export interface V1TaskInfo {
  id: string;
  /** 3-digit status code (100 queued, 200 done, 400 failed, 110-118 staged transfers). */
  status: number;
  description: string;
  service?: string;
  system?: string;
  data: unknown;
  createdAt?: string;
  updatedAt?: string;
}

/** Reservation fields of the v1 reservations service (times `YYYY-MM-DDTHH:MM:SS`). */
export interface V1ReservationRequest {
  numberOfNodes: number;
  /**
   * The node feature to reserve nodes of: the v1 service requires one (its site tool takes it as
   * an argument; 400 "'nodeType' form data input missing" without it).
   */
  nodeType: string;
  starttime: string;
  endtime: string;
}

/**
 * What only API v1 offers. Present on a client whose `capabilities.tasks` (tasks, internal
 * transfers) or `capabilities.reservationsManagement` is true; check with `hasV1Extras`.
 */
export interface V1Extras {
  tasks(opts?: CallOptions): Promise<V1TaskInfo[]>;
  /** Reservations as the reservations service lists them (with users, accounts, flags). */
  reservationsManaged(system: string, opts?: CallOptions): Promise<Reservation[]>;
  reservationsCreate(system: string, name: string, account: string, r: V1ReservationRequest, opts?: CallOptions): Promise<void>;
  reservationsUpdate(system: string, name: string, r: V1ReservationRequest, opts?: CallOptions): Promise<void>;
  reservationsDelete(system: string, name: string, opts?: CallOptions): Promise<void>;
  /** Submits the transfer job (waits for its task, not for the job). */
  internalTransfer(system: string, kind: V1InternalTransferKind, o: V1InternalTransferOptions, opts?: CallOptions): Promise<TransferJob>;
  /** Staged upload of a local file through object storage (xfer-external); resolves with the task id once placed. */
  externalUpload(system: string, localPath: string, remotePath: string, opts?: TransferOptions): Promise<string>;
  /** Stages `remotePath` for download; resolves with the presigned URL and the task id (for `invalidateDownload`). */
  externalDownload(system: string, remotePath: string, opts?: TransferOptions): Promise<{ url: string; taskId: string }>;
  /** Deletes a staged download's object. */
  invalidateDownload(taskId: string, opts?: CallOptions): Promise<void>;
}

/** True when `api` carries the v1-only operations. */
export function hasV1Extras(api: FirecrestApi): api is FirecrestApi & V1Extras {
  return api.apiVersion === 'v1' && typeof (api as Partial<V1Extras>).internalTransfer === 'function';
}
