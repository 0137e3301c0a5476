/**
 * v1 status service (§2.3): systems with their file systems and limits, and the server version of
 * `/status/parameters` (queried once, lazily) behind the gates. A server that reports no version (a
 * deployment without `F7T_GENERAL_INFORMATION`) is not assumed to be old: the 1.16 routes are
 * probed once instead, and the log says so.
 */
import type { CallOptions } from '../api';
import { NotFoundError, NotSupportedError } from '../errors';
import type { FileSystemInfo, Health, System } from '../model';
import type { V1Http } from './v1Http';
import { OutW } from './wire';

/** A scalar wire value as text ('' for anything else). */
function s(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** The first version with partitions, nodes, reservations, compress and extract. */
export const V1_16 = '1.16.0';
/** The official client's fixed limit for direct transfers. */
const DIRECT_LIMIT = 1024 * 1024;

type Entry = { name?: unknown; value?: unknown; unit?: unknown };
type Params = Record<string, Entry[] | undefined>;

function rec(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function param(p: Params, section: string, name: string): unknown {
  return (Array.isArray(p[section]) ? p[section] : []).find((e) => rec(e).name === name)?.value;
}

/** `v1.16.6` → `1.16.6`; anything that is not a version (``, `not defined`) → undefined. */
export function parseV1Version(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim()) : null;
  return m ? `${m[1]}.${m[2]}.${m[3]}` : undefined;
}

/** Semantic comparison of `a.b.c` strings. */
export function versionAtLeast(v: string, min: string): boolean {
  const a = v.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** Status routes and the version gate of one connection. */
export class StatusRoutes {
  private params?: Promise<Params>;

  constructor(private readonly v1: V1Http) {}

  /** `/status/parameters`, once per connection (single flight; a failure is not cached). */
  parameters(call?: CallOptions): Promise<Params> {
    if (!this.params) {
      this.params = this.v1.json(OutW, 'GET', '/status/parameters', { expect: [200], call }).then((b) => rec(b.out) as Params);
      this.params.catch(() => { this.params = undefined; });
    }
    return this.params;
  }

  /** The server's version, undefined when it reports none. */
  async version(call?: CallOptions): Promise<string | undefined> {
    return parseV1Version(param(await this.parameters(call), 'general', 'FIRECREST_VERSION'));
  }

  /**
   * Whether a server that reports no version has the 1.16 routes: `GET /compute/partitions`
   * without a machine answers 400 ("No machine name given") where the route exists, and the
   * gateway's 404 where it does not. Once per connection; nothing is created on the server.
   */
  private has116(call?: CallOptions): Promise<boolean> {
    this.probe116 ??= this.v1.http.request({ method: 'GET', route: '/compute/partitions', expect: [200, 400], call })
      .then(() => true, (e: unknown) => {
        if (e instanceof NotFoundError) return false;
        this.probe116 = undefined;
        throw e;
      })
      .then((yes) => {
        this.v1.http.logger.warn(`The FirecREST v1 server reports no version (no F7T_GENERAL_INFORMATION): its 1.16 routes were probed and are ${yes ? 'there' : 'missing'}`);
        return yes;
      });
    return this.probe116;
  }
  private probe116?: Promise<boolean>;

  /** NotSupportedError unless the server is at least `min` (probed when it reports no version). */
  async gate(min: string, feature: string, call?: CallOptions): Promise<void> {
    const v = await this.version(call);
    if (v === undefined) {
      // Whatever 1.16 has is there when its routes are.
      if (versionAtLeast(V1_16, min) && (await this.has116(call))) return;
      throw new NotSupportedError(`${feature} needs FirecREST ${min} or later; this server reports no version${versionAtLeast(V1_16, min) ? ' and lacks the 1.16 routes' : ''}`);
    }
    if (!versionAtLeast(v, min)) throw new NotSupportedError(`${feature} needs FirecREST ${min} or later; this server runs ${v}`);
  }

  async systems(call?: CallOptions): Promise<System[]> {
    const [sys, fss, params] = await Promise.all([
      this.v1.json(OutW, 'GET', '/status/systems', { expect: [200], call }),
      this.v1.json(OutW, 'GET', '/status/filesystems', { expect: [200], call }).catch(() => ({ out: {} })),
      this.parameters(call),
    ]);
    const mb = Number(param(params, 'utilities', 'UTILITIES_MAX_FILE_SIZE'));
    const maxDirect = Number.isFinite(mb) && mb > 0 ? Math.min(DIRECT_LIMIT, Math.floor(mb * 1024 * 1024)) : DIRECT_LIMIT;
    const scheduler = param(params, 'compute', 'WORKLOAD_MANAGER');
    const fsByName = rec(fss.out);
    return (Array.isArray(sys.out) ? sys.out : []).map((entry): System => {
      const r = rec(entry);
      const name = s(r.system);
      const fs = (Array.isArray(fsByName[name]) ? (fsByName[name] as unknown[]) : []).map(rec);
      return {
        name,
        health: health(r, fs),
        fileSystems: fileSystems(fs),
        maxDirectTransferSize: maxDirect,
        maxOpsFileSize: Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : undefined,
        transferMethod: 'xfer-external',
        schedulerType: typeof scheduler === 'string' ? scheduler.toLowerCase() : undefined,
      };
    });
  }
}

function health(sys: Record<string, unknown>, fs: Record<string, unknown>[]): Health {
  const up = sys.status === 'available';
  const services = [
    { service: 'ssh', healthy: up, message: typeof sys.description === 'string' ? sys.description : undefined },
    ...fs.map((f) => ({ service: `filesystem ${s(f.name)}`, healthy: f.status === 'available', path: s(f.path), message: typeof f.description === 'string' ? f.description : undefined })),
  ];
  const fsDown = services.some((x) => !x.healthy);
  return { status: !up ? 'down' : fsDown ? 'degraded' : 'ok', services };
}

/** v1 names file systems (`HOME`, `SCRATCH`); the home one is the default work directory. */
function fileSystems(fs: Record<string, unknown>[]): FileSystemInfo[] {
  const out = fs.map((f) => ({ path: s(f.path), dataType: s(f.name).toLowerCase(), defaultWorkDir: false }));
  const home = out.find((f) => f.dataType === 'home' || f.dataType === 'users') ?? out[0];
  if (home) home.defaultWorkDir = true;
  return out;
}
