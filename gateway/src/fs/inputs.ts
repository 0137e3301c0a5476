/**
 * Reads the inputs of the filesystem routes the way the real server's FastAPI/pydantic models do:
 * query values are strings to coerce (booleans `true/1/yes/on...`, integers), JSON body fields accept
 * their camelCase alias and their snake_case name, and the main path of a body is `path`, `sourcePath`
 * or `source_path`. Failures are 400 validation errors naming the field.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../http/errors';
import { refuseUnescapedQuote } from '../compat';

type Location = 'query' | 'body';

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
const INT = /^\s*[+-]?\d+\s*$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Input values of one request location with pydantic-like coercion. */
export class Inputs {
  private constructor(private readonly location: Location, private readonly values: Record<string, unknown>, private readonly req: FastifyRequest) {}

  static query(req: FastifyRequest): Inputs {
    const q = isRecord(req.query) ? req.query : {};
    // A repeated query key arrives as an array; FastAPI keeps the last value for scalar parameters.
    const last: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(q)) last[k] = Array.isArray(v) ? v[v.length - 1] : v;
    return new Inputs('query', last, req);
  }

  static body(req: FastifyRequest): Inputs {
    if (!isRecord(req.body)) {
      throw new ApiError(400, '1 validation error: body: input should be a valid dictionary', {
        errorType: 'validation',
        data: { fields: [{ location: 'body', name: 'body', message: 'Input should be a valid dictionary or object to extract fields from' }] },
      });
    }
    return new Inputs('body', req.body, req);
  }

  /** The first of `names` that is present (undefined when none is; null is a present value). */
  private raw(names: string[]): { name: string; value: unknown } | undefined {
    for (const name of names) if (Object.prototype.hasOwnProperty.call(this.values, name)) return { name, value: this.values[name] };
    return undefined;
  }

  private invalid(name: string, message: string): ApiError {
    return validationError(this.location, name, message);
  }

  /** An optional string; `names[0]` is the name reported in errors. */
  string(names: string[], fallback?: string): string | undefined {
    const hit = this.raw(names);
    if (!hit || hit.value === undefined) return fallback;
    if (hit.value === null && this.location === 'body') return fallback;
    if (typeof hit.value !== 'string') throw this.invalid(names[0], 'Input should be a valid string');
    return hit.value;
  }

  /** A required string (400 `Field required` naming `names[0]` when absent). */
  requiredString(names: string[]): string {
    const v = this.string(names);
    if (v === undefined) throw this.invalid(names[0], 'Field required');
    return v;
  }

  bool(names: string[], fallback = false): boolean {
    const hit = this.raw(names);
    if (!hit || hit.value === undefined || hit.value === null) return fallback;
    const v = hit.value;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
    if (typeof v === 'string') {
      const s = v.trim().toLowerCase();
      if (TRUE.has(s)) return true;
      if (FALSE.has(s)) return false;
    }
    throw this.invalid(names[0], 'Input should be a valid boolean, unable to interpret input');
  }

  /** An optional integer (undefined when absent or empty in a query). */
  int(names: string[]): number | undefined {
    const hit = this.raw(names);
    if (!hit || hit.value === undefined || hit.value === null) return undefined;
    const v = hit.value;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (typeof v === 'string' && INT.test(v)) {
      const n = Number(v.trim());
      if (Number.isSafeInteger(n)) return n;
    }
    throw this.invalid(names[0], 'Input should be a valid integer, unable to parse string as an integer');
  }

  /** The main path of a filesystem request, checked to be absolute. */
  path(names: string[] = ['path']): string {
    const path = checkPath(this.requiredString(names));
    refuseUnescapedQuote(this.req, path);
    return path;
  }

  /** The main path of a filesystem body: `path`, `sourcePath` or `source_path` (errors name `sourcePath`). */
  sourcePath(): string {
    const path = checkPath(this.requiredString(['sourcePath', 'path', 'source_path']));
    refuseUnescapedQuote(this.req, path);
    return path;
  }
}

/** Paths are absolute and free of NUL bytes (which no file name can hold). */
export function checkPath(path: string): string {
  if (!path.startsWith('/')) throw new ApiError(400, `Invalid path: '${path}' is not an absolute path.`);
  if (path.includes('\0')) throw new ApiError(400, 'Invalid path: a path cannot contain a NUL character.');
  return path;
}
