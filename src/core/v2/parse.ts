/** Validates a JSON answer against its route's schema; anything else is a MalformedResponseError. */
import type { z } from 'zod';
import { MalformedResponseError } from '../errors';
import { redact } from '../http/redact';
import type { TransportResponse } from '../http/transport';

function contentType(res: TransportResponse): string {
  const v = res.headers['content-type'];
  return (Array.isArray(v) ? v[0] : v ?? 'no content type').split(';')[0];
}

/** Parsed and validated body of `res`, answered on `route` (a template such as `GET /status/systems`). */
export function parseBody<S extends z.ZodType>(schema: S, res: TransportResponse, route: string): z.infer<S> {
  const text = Buffer.from(res.body).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const snippet = redact(text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120));
    throw new MalformedResponseError(`The server did not answer like FirecREST on ${route}: expected JSON, got ${contentType(res)}${snippet ? ` ("${snippet}")` : ''}`, { status: res.status, route });
  }
  const r = schema.safeParse(json);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new MalformedResponseError(`Malformed answer on ${route}: ${issues}`, { status: res.status, route });
  }
  return r.data;
}
