/**
 * The domain types every feature uses. Wire shapes (v1 and v2) are translated into these in
 * `src/core/v1` and `src/core/v2`; nothing outside `core` ever sees a raw response body.
 */

/** The API generation a connection speaks. */
export type ApiVersion = 'v1' | 'v2';

/** How a profile chooses its API generation: `auto` probes the server. */
export type ApiVersionSetting = ApiVersion | 'auto';

/** A connection profile, as stored in settings (the secret is never part of it). */
export interface ConnectionProfile {
  /** Unique, human-chosen name; also the key of the secret in secret storage. */
  name: string;
  /** API base URL, e.g. `https://api.example.org/firecrest/v2`. */
  url: string;
  apiVersion: ApiVersionSetting;
  /** OAuth2 token endpoint (client credentials). Absent for token-command and static-token profiles. */
  tokenUrl?: string;
  clientId?: string;
  /** `client_secret_post` (default) or `client_secret_basic`. */
  clientAuthMethod?: 'client_secret_post' | 'client_secret_basic';
  /** A command printing a bearer token on stdout; re-run whenever the token nears expiry. */
  tokenCommand?: string;
  /**
   * `oidc`: a person signs in through the site's identity provider (`issuer`, public `clientId`,
   * `scopes`). Absent: client credentials (`tokenUrl`) or `tokenCommand`, as configured.
   */
  auth?: 'oidc';
  /** OpenID Connect issuer URL (discovery at `/.well-known/openid-configuration`). */
  issuer?: string;
  /** OpenID Connect scopes; default `openid profile offline_access`. */
  scopes?: string;
  defaultSystem?: string;
  defaultAccount?: string;
  /** Extra CA bundle (PEM file path) for sites with their own CA. */
  caFile?: string;
  /** Disables TLS verification for this profile only. Loud, never global. */
  insecureSkipTlsVerify?: boolean;
}

export type HealthStatus = 'ok' | 'degraded' | 'down' | 'unknown';

export interface ServiceHealth {
  service: string;
  healthy: boolean;
  message?: string;
  /** For filesystem services: the path that was probed. */
  path?: string;
  latencySeconds?: number;
  lastChecked?: Date;
}

export interface Health {
  status: HealthStatus;
  services: ServiceHealth[];
  lastChecked?: Date;
}

/** `users`, `store`, `archive`, `apps`, `scratch`, `project` (v2), or a site's own word. */
export type FileSystemKind = string;

export interface FileSystemInfo {
  path: string;
  dataType: FileSystemKind;
  defaultWorkDir: boolean;
}

export interface System {
  name: string;
  health: Health;
  fileSystems: FileSystemInfo[];
  /** Largest file that may move through the direct (non-staged) upload/download routes, in bytes. */
  maxDirectTransferSize: number;
  /** The server's own limit on a file through its direct routes (v2 `max_ops_file_size`, v1 `UTILITIES_MAX_FILE_SIZE`), when it says. */
  maxOpsFileSize?: number;
  /** Staged transfer method offered by the system (`s3`, `streamer`, `wormhole`), if any. */
  transferMethod?: string;
  schedulerType?: string;
  schedulerVersion?: string;
}

export interface Partition {
  name: string;
  /** Scheduler state, upper case (`UP`, `DOWN`, `DRAIN`, `INACTIVE`). */
  state: string;
  cpus?: number;
  totalNodes?: number;
  /** True when the scheduler marks it as the default partition (when the API says so). */
  isDefault?: boolean;
  /** Maximum time limit in seconds; `undefined` when unknown, `Infinity` for unlimited. */
  maxTimeSeconds?: number;
}

export interface ComputeNode {
  name: string;
  /** Normalised upper-case states, e.g. `['IDLE']`, `['MIXED', 'DRAIN']`. */
  states: string[];
  cpus: number;
  partitions: string[];
  allocCpus?: number;
  idleCpus?: number;
  cpuLoad?: number;
  freeMemory?: number;
  features?: string[];
}

export interface Reservation {
  name: string;
  /** Lower case: `active` / `inactive` (v2), or the scheduler's word. */
  state: string;
  start: Date;
  end: Date;
  nodeList: string;
  features?: string;
  /** v1 only: the users/accounts it is for, flags such as MAINT, when known. */
  users?: string[];
  accounts?: string[];
  flags?: string[];
}

export interface UserInfo {
  user: { id: string; name: string };
  group: { id: string; name: string };
  groups: { id: string; name: string }[];
  /** Scheduler accounts the user may charge, when the API reports them. */
  accounts?: { name: string; isDefault: boolean }[];
}

/** A file type, as `ls -l` shows it in its first column. */
export type FileKind = 'file' | 'directory' | 'symlink' | 'other';

export interface FileEntry {
  /** Entry name (for listings) or the path as given (single-entry answers). */
  name: string;
  kind: FileKind;
  size: number;
  /** Modification time as epoch milliseconds (server local time interpreted as UTC when no zone). */
  mtime: number;
  /** e.g. `rwxr-xr-x` */
  permissions: string;
  owner: string;
  group: string;
  /** For symlinks: the target as stored in the link. */
  linkTarget?: string;
}

export interface FileStat {
  mode: number;
  ino: number;
  dev: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  /** epoch seconds */
  atime: number;
  ctime: number;
  mtime: number;
}

export interface FileContent {
  content: string;
  contentType: 'lines' | 'bytes';
  startPosition: number;
  endPosition: number;
}

export interface Checksum {
  algorithm: string;
  checksum: string;
}

export type CompressionType = 'none' | 'gzip' | 'bzip2' | 'xz';

export type JobStateClass = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'other';

export interface Job {
  id: string;
  name: string;
  /** Raw scheduler state, e.g. `RUNNING`, `CANCELLED by 1001`. */
  state: string;
  stateClass: JobStateClass;
  /** True once the state is final (the job will not change again). */
  isFinal: boolean;
  reason?: string;
  exitCode?: number;
  signal?: number;
  /** epoch seconds */
  submitTime?: number;
  /** When the job started; never set for a pending job (see expectedStartTime). */
  startTime?: number;
  /**
   * A pending job: when Slurm expects it to start (its backfill estimate, which the APIs report as
   * the start time). Absent while Slurm has no estimate.
   */
  expectedStartTime?: number;
  endTime?: number;
  elapsedSeconds?: number;
  /** Time limit in seconds; undefined when unknown or unlimited. */
  timeLimitSeconds?: number;
  partition?: string;
  account?: string;
  user?: string;
  group?: string;
  nodes?: string;
  nodeCount?: number;
  cluster?: string;
  workingDirectory?: string;
  stdoutPath?: string;
  stderrPath?: string;
  priority?: number;
  /** A member of a job array (its id reads `12_3`, or `12_[4-99%10]` for the tasks not started yet). */
  array?: JobArrayInfo;
  /**
   * An array task's own numeric id, where the server listed the task under it too (the v2 servers
   * do while it is queued or running): the only form of a task's id a v2 path accepts.
   */
  ownId?: string;
}

export interface JobArrayInfo {
  /** The array's id (what sbatch printed; it cancels every task). */
  jobId: string;
  /** This task's index; undefined for the row of the tasks not started yet. */
  taskId?: number;
  /** The indexes not started yet, as the scheduler writes them (`4-99%10`). */
  pending?: string;
  /** How many tasks this row stands for (1 for a task). */
  count: number;
  /** The array's `%N` throttle, on the row of tasks not started yet: at most N run at once. */
  throttle?: number;
}

export interface JobMetadata {
  id: string;
  script?: string;
  stdinPath?: string;
  stdoutPath?: string;
  stderrPath?: string;
}

export interface JobSubmission {
  /** Inline script text (sent as the script) ... */
  script?: string;
  /** ... or the absolute path of a script on the cluster. */
  scriptPath?: string;
  workingDirectory: string;
  name?: string;
  account?: string;
  partition?: string;
  reservation?: string;
  stdoutPath?: string;
  stderrPath?: string;
  stdinPath?: string;
  env?: Record<string, string>;
  constraints?: string;
  /** Slurm `--dependency` (e.g. `afterok:123`); sent as an `#SBATCH` line of an inline script. */
  dependency?: string;
}

/** A server-side job that moves data (v2 `transferJob`, v1 xfer-internal task). */
export interface TransferJob {
  jobId: string;
  system: string;
  workingDirectory?: string;
  outputLog?: string;
  errorLog?: string;
  /** v1: the task that tracks it. */
  taskId?: string;
}

/** Progress of a long operation (staged transfer, job wait, task poll). */
export interface Progress {
  phase: string;
  bytesDone?: number;
  bytesTotal?: number;
  /** bytes per second, smoothed */
  rate?: number;
  /** seconds */
  eta?: number;
  partsDone?: number;
  partsTotal?: number;
  /** Numbers (1-based) of the parts of a multipart upload accepted so far, in no particular order. */
  partsFinished?: number[];
  /** Set by the last event of a verified transfer: the SHA-256 (hex) and whether the server's matched. */
  sha256?: string;
  verified?: boolean;
  message?: string;
}

/** What a sign-in or a refresh gives. The refresh token is for the caller's secret store only. */
export interface OidcTokens {
  accessToken: string;
  /** Epoch ms, when known. */
  expiresAt?: number;
  /** Absent when the identity provider issued none (the previous one stays valid then). */
  refreshToken?: string;
  /** Who signed in, from the verified ID token (sign-in only). */
  identity?: OidcIdentity;
}

export interface OidcIdentity {
  subject: string;
  /** `preferred_username`: the cluster account at FirecREST sites. */
  username?: string;
  name?: string;
}
