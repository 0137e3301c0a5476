/** Validates a JSON answer against its route's schema; anything else is a MalformedResponseError. */
import type { z } from 'zod';
import { MalformedResponseError } from '../errors';
import { redact } from '../http/redact';
import type { TransportResponse } from '../http/transport';

function contentType(res: TransportResponse): string {
  const v = res.headers['content-type'];
  return (Array.isArray(v) ? v[0] : v ?? 'no content type').split(';')[0];
}

/** The JSON of `res`; MalformedResponseError when it is not JSON. */
export function parseJson(res: TransportResponse, route: string): unknown {
  // A view of the bytes, not a copy (a listing of 10,000 entries is about 1.5 MB).
  const text = Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const snippet = redact(text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120));
    throw new MalformedResponseError(`The server did not answer like FirecREST on ${route}: expected JSON, got ${contentType(res)}${snippet ? ` ("${snippet}")` : ''}`, { status: res.status, route });
  }
}

/** `json` checked against `schema`; MalformedResponseError naming the first issues otherwise. */
export function validate<S extends z.ZodType>(schema: S, json: unknown, route: string, status?: number): z.infer<S> {
  const r = schema.safeParse(json);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new MalformedResponseError(`Malformed answer on ${route}: ${issues}`, { status, route });
  }
  return r.data;
}

/** Parsed and validated body of `res`, answered on `route` (a template such as `GET /status/systems`). */
export function parseBody<S extends z.ZodType>(schema: S, res: TransportResponse, route: string): z.infer<S> {
  return validate(schema, parseJson(res, route), route, res.status);
}

/**
 * Each row translated when every one passes `isRow` (a one-pass check of exactly what a schema
 * allows), else undefined: the caller then goes through the schema, which names what is wrong.
 */
export function translateRows<W, T>(rows: unknown[], isRow: (row: unknown) => row is W, translate: (row: W) => T): T[] | undefined {
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isRow(row)) return undefined;
    out[i] = translate(row);
  }
  return out;
}
