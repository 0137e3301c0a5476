/**
 * What v1 route modules share: their dependencies, the authenticated user, the `X-Machine-Name`
 * lookup with the per-service header spelling (§2.2, Q2), and the inputs as the Flask services read
 * them (query or form, urlencoded or multipart; booleans `true`/`yes`/`1`; forbidden characters).
 */
import type { FastifyRequest } from 'fastify';
import type { ObjectStore } from '../staging/store';
import type { Signer } from '../staging/signer';
import type { UnixUser } from '../users';
import type { GatewaySettings, SystemRuntime } from '../v2/context';
import type { TaskStore } from './tasks';
import { V1Error } from './errors';
import type { ReservationOwners } from './reservation-owners';

export interface V1Deps {
  settings: GatewaySettings;
  systems: Map<string, SystemRuntime>;
  tasks: TaskStore;
  store: ObjectStore;
  signer: Signer;
  /** Job id -> batch script path of jobs submitted through v1 (QueueJob `job_file`). */
  jobFiles: Map<string, string>;
  /** Who may update or delete which reservation. */
  reservationOwners: ReservationOwners;
}

/** Object-store limits the v1 parameters advertise (§2.3 defaults). */
export const TEMPURL_EXP_SECONDS = 604800;
export const STORAGE_MAX_FILE_MB = 5120;

export function v1User(req: FastifyRequest): UnixUser {
  if (!req.f7tUser) throw new Error('v1 route used without the auth hook');
  return req.f7tUser;
}

/** Which spelling of the unknown-machine header a service uses. */
export type MachineStyle = 'utilities' | 'compute';

/** The system named by `X-Machine-Name`; 400 when missing or unknown. */
export function machine(req: FastifyRequest, deps: V1Deps, style: MachineStyle, description: string): SystemRuntime {
  const raw = req.headers['x-machine-name'];
  const name = Array.isArray(raw) ? raw[0] : raw;
  if (!name) throw new V1Error(400, { description: 'No machine name given' });
  const system = deps.systems.get(name.toLowerCase());
  if (system) return system;
  if (style === 'utilities') {
    throw new V1Error(400, { description, error: 'Machine does not exist' }, { 'X-Machine-Does-Not-Exist': 'Machine does not exist' });
  }
  throw new V1Error(400, { description, error: 'Machine does not exists' }, { 'X-Machine-Does-Not-Exists': 'Machine does not exists' });
}

/** `< > | ; " ' & \ ( )`, backtick, ASCII control characters: refused by the real server's sanitizer. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the sanitizer refuses
const FORBIDDEN = /[<>|;"'&\\()`\x00-\x1f\x7f]/;

export function hasInvalidChar(value: string): boolean {
  return FORBIDDEN.test(value);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One request's string inputs (query or form), read with the v1 server's rules. */
export class Fields {
  constructor(private readonly values: Record<string, string>, private readonly description: string) {}

  static query(req: FastifyRequest, description: string): Fields {
    const out: Record<string, string> = {};
    if (isRecord(req.query)) {
      for (const [k, v] of Object.entries(req.query)) {
        // Flask's request.args.get() returns the first value of a repeated key.
        const first: unknown = Array.isArray(v) ? v[0] : v;
        if (typeof first === 'string') out[k] = first;
      }
    }
    return new Fields(out, description);
  }

  /** Form fields from an urlencoded or a multipart body (without file parts). */
  static async form(req: FastifyRequest, description: string): Promise<Fields> {
    const out: Record<string, string> = {};
    if (req.isMultipart()) {
      for await (const part of req.parts()) {
        if (part.type === 'field') out[part.fieldname] ??= String(part.value);
        else part.file.resume();
      }
    } else if (isRecord(req.body)) {
      for (const [k, v] of Object.entries(req.body)) {
        const first: unknown = Array.isArray(v) ? v[0] : v;
        if (typeof first === 'string') out[k] = first;
      }
    }
    return new Fields(out, description);
  }

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.values, name);
  }

  /** The raw value, unchecked (undefined when absent). */
  raw(name: string): string | undefined {
    return this.has(name) ? this.values[name] : undefined;
  }

  /** A required, sanitised value: 400 `'<name>' not specified` / `is empty` / `has invalid char`. */
  required(name: string): string {
    const v = this.raw(name);
    if (v === undefined) throw this.invalid(`'${name}' not specified`);
    if (v === '') throw this.invalid(`'${name}' is empty`);
    if (hasInvalidChar(v)) throw this.invalid(`'${name}' has invalid char`);
    return v;
  }

  /** An optional sanitised value; empty counts as absent. */
  optional(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    if (hasInvalidChar(v)) throw this.invalid(`'${name}' has invalid char`);
    return v;
  }

  /** True for `true`/`yes` (any case) or `1`, as the real server reads booleans. */
  bool(name: string): boolean {
    const v = this.raw(name)?.trim().toLowerCase();
    return v === 'true' || v === 'yes' || v === '1';
  }

  /** A non-negative integer, or undefined when absent; 400 when not a number. */
  int(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v.trim())) throw this.invalid(`'${name}' must be a positive integer`);
    return Number(v.trim());
  }

  invalid(error: string): V1Error {
    return new V1Error(400, { description: this.description, error });
  }
}
