/**
 * v1 status service (§2.3): systems with their file systems and limits, and the server version of
 * `/status/parameters` (queried once, lazily; 1.15.0 when the entry is absent) behind the gates.
 */
import type { CallOptions } from '../api';
import { NotSupportedError } from '../errors';
import type { FileSystemInfo, Health, System } from '../model';
import type { V1Http } from './v1Http';
import { OutW } from './wire';

/** A scalar wire value as text ('' for anything else). */
function s(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** The version a server without `general.FIRECREST_VERSION` is assumed to run (§4.2). */
export const DEFAULT_V1_VERSION = '1.15.0';
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

/** `v1.16.6` → `1.16.6`; anything that is not a version (``, `not defined`) → the default. */
export function parseV1Version(v: unknown): string {
  const m = typeof v === 'string' ? /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim()) : null;
  return m ? `${m[1]}.${m[2]}.${m[3]}` : DEFAULT_V1_VERSION;
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

  async version(call?: CallOptions): Promise<string> {
    return parseV1Version(param(await this.parameters(call), 'general', 'FIRECREST_VERSION'));
  }

  /** NotSupportedError unless the server is at least `min`. */
  async gate(min: string, feature: string, call?: CallOptions): Promise<void> {
    const v = await this.version(call);
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
