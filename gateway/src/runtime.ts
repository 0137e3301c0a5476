/**
 * What the gateway runs with: its settings and each system's runtime (the scheduler, the file
 * systems). Read by the route modules of both API generations and by the shared helpers below them.
 */
import type { Scheduler } from './scheduler/types';

/** `upstream`: behave as the upstream servers were observed to (compat.ts). */
export type CompatMode = 'none' | 'upstream';

export interface FileSystemConfig {
  path: string;
  dataType: 'users' | 'store' | 'archive' | 'apps' | 'scratch' | 'project';
  defaultWorkDir: boolean;
}

export interface SystemRuntime {
  name: string;
  scheduler: Scheduler;
  fileSystems: FileSystemConfig[];
  /** `#SBATCH` lines put at the top of transfer job scripts (may contain `{account}`). */
  transferDirectives: string[];
}

export interface GatewaySettings {
  /** `max_ops_file_size`: direct transfer and ops output limit, bytes (default 5242880). */
  maxOpsFileSize: number;
  /** `ssh.timeout.commandExecution`: seconds each ops command may run (default 5). */
  commandTimeoutSeconds: number;
  /** Value of the F7T-AppVersion header. */
  appVersion: string;
  /** Public origin of this gateway, e.g. http://127.0.0.1:41234 (for URLs it hands out). */
  origin: string;
  /** Directory for gateway state (staging store, local scheduler, keys). */
  stateDir: string;
  /** S3 `multipart.max_part_size`: bytes per part of a staged upload (default 2 GiB). */
  maxPartSize: number;
  /** S3 `ttl`: seconds a presigned staging URL stays valid (default 604800). */
  stagingTtlSeconds: number;
  /** Bytes an archive may expand to on extract (default 1 GiB). */
  maxExtractBytes: number;
  /** Bytes of staged uploads one user may hold in the staging area at once (default 64 GiB). */
  maxStagingBytesPerUser: number;
  /** `upstream`: reproduce the upstream servers' observed behaviour (compat.ts). */
  compat: CompatMode;
  /** Seconds between the staged-upload ingress job's probes of the object (upstream: 60). */
  ingressPollSeconds: number;
  /** Upstream mode: a connection idle this long is closed unannounced (uvicorn's 5 s). */
  idleCloseSeconds: number;
  /**
   * The staged transfer method the systems advertise (`data_transfer.serviceType`): `s3` (the
   * gateway's object store) or `streamer` (its transfer jobs run a streamer); `wormhole` stands
   * for a site configured so (every staged request refused). Requests for another method: 400.
   */
  transferMethod: 's3' | 'streamer' | 'wormhole';
  /** The streamer method's jobs (`data_transfer` of such a site). */
  streamer: StreamerSettings;
  /** Seconds a finished job stays out of window listings (v2 jobs, v1 acct by time), as slurmdbd lags. */
  accountingLagSeconds: number;
  /** Users besides root who may update or delete any reservation (v1). */
  reservationAdmins: readonly string[];
}

/** What a streamer transfer job runs, and where it listens. */
export interface StreamerSettings {
  /** The program, by absolute paths: the Node binary and the gateway's streamer (`dist/gateway-streamer.js`). */
  command: readonly string[];
  /** Ports the job's streamer tries in turn (`portRange`). */
  ports: readonly [number, number];
  /** The interface it listens on, and the address the client is given (`host`, `publicIps`). */
  host: string;
  /** Seconds it waits for the client before it stops (`waitTimeout`). */
  waitTimeoutSeconds: number;
  /** Bytes an upload may bring (`inboundTransferLimit`). */
  inboundLimitBytes: number;
}
