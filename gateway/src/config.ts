/**
 * Gateway configuration: a JSON file (`--config FILE`), every key optional. The format is documented
 * in gateway/README.md; defaults are chosen so that `node dist/gateway.js` alone gives a usable
 * cluster named `localcluster` with the users alice and bob.
 */
import { readFileSync } from 'node:fs';
import type { FaultConfig } from './faults';
import type { FileSystemConfig } from './v2/context';
import type { CompatMode } from './compat';
import type { IdpUserConfig } from './idp/accounts';

export interface SystemConfig {
  name: string;
  /** Defaults: `/home` (users, default work dir) and, when root, `/scratch` (scratch). */
  fileSystems?: FileSystemConfig[];
  /** Defaults to `["#SBATCH --partition=xfer"]` when the scheduler has an `xfer` partition. */
  transferDirectives?: string[];
}

export interface ClientConfig {
  clientId: string;
  /** The unix user the client acts as (ignored when not root: every client is the current user). */
  user: string;
  /** Fixed secret; when absent a random one is generated once and kept in the state dir. */
  clientSecret?: string;
}

export interface GatewayConfig {
  systems: SystemConfig[];
  clients: ClientConfig[];
  tokenLifetimeSeconds: number;
  maxOpsFileSize: number;
  commandTimeoutSeconds: number;
  /** Bytes per part of staged (S3 multipart) uploads. */
  maxPartSize: number;
  /** Lifetime of presigned staging URLs, seconds. */
  stagingTtlSeconds: number;
  /** Bytes an archive may expand to when extracted (a gzip bomb stops here, before anything is written). */
  maxExtractBytes: number;
  /** Bytes of staged (not yet transferred) uploads one user may hold in the staging area. */
  maxStagingBytesPerUser: number;
  /**
   * Folders put before the standard PATH of every user's commands and jobs, as a site's login
   * profile puts its own tools (`quota`, `lfs`) there: absolute paths. The test set-up puts stubs
   * of `quota` and `lfs` here.
   */
  userPath: string[];
  /** Users besides root who may update or delete any reservation; others only their own. */
  reservationAdmins: string[];
  /** `upstream`: behave as the upstream servers were observed to (compat.ts); default `none`. */
  compat: CompatMode;
  /** Seconds between the ingress job's probes of a staged object (default 1; upstream mode 60). */
  ingressPollSeconds?: number;
  /** Ports a streamer transfer job tries (default 45665–45684; upstream's default is 5665–5675). */
  streamerPorts?: [number, number];
  /** Seconds a finished job is missing from time-window accounting (Slurm's lag: 3-4 s); 0 = none. */
  accountingLagSeconds: number;
  appVersion: string;
  /** Seconds between background health probes (`probing.intervalCheck`). */
  healthIntervalSeconds: number;
  local: {
    partitions: { name: string; isDefault: boolean; maxTimeSeconds: number | null }[];
    reservations: { name: string; startTime: number; endTime: number; users: string[]; flags: string[] }[];
  };
  faults: FaultConfig;
  /** The built-in OpenID Connect identity provider under `/idp`. */
  idp: IdpConfig;
}

export interface IdpConfig {
  enabled: boolean;
  /** The public client the extension signs in with (auth code + PKCE, device grant). */
  publicClientId: string;
  /** People who can sign in; passwords (and TOTP secrets) are generated once when not given. */
  users: IdpUserConfig[];
  /** Ask for a TOTP code after the password. */
  mfa: boolean;
  /** The device grant's polling interval: advertised, and required between polls (`slow_down`). */
  devicePollSeconds: number;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/** The built-in defaults (reservation times are relative to `now`, epoch seconds). */
export function defaultConfig(now = Math.floor(Date.now() / 1000)): GatewayConfig {
  return {
    systems: [{ name: 'localcluster' }],
    clients: [
      { clientId: 'alice-client', user: 'alice' },
      { clientId: 'bob-client', user: 'bob' },
    ],
    tokenLifetimeSeconds: 300,
    maxOpsFileSize: 5242880,
    commandTimeoutSeconds: 5,
    maxPartSize: 2147483648,
    stagingTtlSeconds: 604800,
    maxExtractBytes: 1073741824,
    maxStagingBytesPerUser: 68719476736,
    reservationAdmins: [],
    userPath: [],
    accountingLagSeconds: 0,
    compat: 'none',
    appVersion: '2.5.6',
    healthIntervalSeconds: 120,
    local: {
      partitions: [
        { name: 'debug', isDefault: true, maxTimeSeconds: HOUR },
        { name: 'long', isDefault: false, maxTimeSeconds: 2 * DAY },
        { name: 'xfer', isDefault: false, maxTimeSeconds: DAY },
      ],
      reservations: [
        { name: 'maint', startTime: now + 3 * DAY, endTime: now + 3 * DAY + 4 * HOUR, users: ['root'], flags: ['MAINT'] },
      ],
    },
    faults: {},
    idp: { enabled: true, publicClientId: 'firecrest-vscode', users: [{ login: 'alice' }, { login: 'bob' }], mfa: false, devicePollSeconds: 5 },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads `file` (if given) over the defaults; top-level keys replace, `local` merges per key. */
export function loadConfig(file?: string): GatewayConfig {
  const base = defaultConfig();
  if (!file) return base;
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isObject(raw)) throw new Error(`${file}: the configuration must be a JSON object`);
  const merged = { ...base, ...raw };
  merged.local = { ...base.local, ...(isObject(raw.local) ? raw.local : {}) };
  merged.idp = { ...base.idp, ...(isObject(raw.idp) ? raw.idp : {}) };
  if (!Array.isArray(merged.systems) || merged.systems.length === 0) throw new Error(`${file}: "systems" must be a non-empty array`);
  if (!Array.isArray(merged.clients) || merged.clients.length === 0) throw new Error(`${file}: "clients" must be a non-empty array`);
  for (const s of merged.systems) s.name = s.name.toLowerCase();
  if (!Array.isArray(merged.userPath) || !merged.userPath.every((d) => typeof d === 'string' && d.startsWith('/') && !/[:\0\n]/.test(d))) {
    throw new Error(`${file}: "userPath" must be an array of absolute folder paths (no ':')`);
  }
  return merged;
}
