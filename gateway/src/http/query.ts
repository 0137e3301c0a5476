/** Query-string parsing with FastAPI's rules and validation errors (400, `errorType: "validation"`). */
import type { FastifyRequest } from 'fastify';
import { validationError } from './errors';

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

function raw(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** A boolean query parameter (`true/false`, `1/0`, `yes/no`, `on/off`). */
export function queryBool(req: FastifyRequest, name: string, dflt: boolean): boolean {
  const v = raw(req, name);
  if (v === undefined) return dflt;
  const s = v.toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  throw validationError('query', name, 'Input should be a valid boolean, unable to interpret input');
}

/** An optional string query parameter. */
export function queryString(req: FastifyRequest, name: string): string | undefined {
  return raw(req, name);
}
