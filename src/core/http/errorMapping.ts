/**
 * The ONE function that turns a non-success HTTP answer into a typed error. It reads the v2 error
 * body (`message`, `causedBy`, `data.fields`, `user`), the v1 body (`description`, `error`) and the
 * v1 explanatory `X-*` headers, so both API generations share it.
 */
import {
  FirecrestError,
  InvalidInputError,
  MaintenanceError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  TooLargeError,
  UnauthorizedError,
  UnavailableError,
} from '../errors';
import { redact } from './redact';
import { rateLimitWaitSeconds } from './retryAfter';
import { isRecord } from '../records';

type HeaderBag = Record<string, string | string[] | undefined>;

/** A finished HTTP exchange whose status was not the expected one. */
export interface ErrorResponse {
  status: number;
  /** Route template, e.g. `GET /filesystem/{system}/ops/ls`. */
  route: string;
  headers: HeaderBag;
  body: Uint8Array | string;
  /** The `X-Request-ID` sent: server errors name it, for the site's support. */
  requestId?: string;
}

type ErrorClass = new (message: string, details: ConstructorParameters<typeof FirecrestError>[1]) => FirecrestError;

/** v1 explanatory headers, in the order they are checked (2.2), and the error each means. */
const V1_HEADERS: [string, ErrorClass][] = [
  ['x-machine-does-not-exist', NotFoundError],
  ['x-machine-does-not-exists', NotFoundError],
  ['x-machine-not-available', UnavailableError],
  ['x-permission-denied', PermissionDeniedError],
  ['x-invalid-path', NotFoundError],
  ['x-not-found', NotFoundError],
  ['x-timeout', TimeoutError],
  ['x-size-limit', TooLargeError],
  ['x-exists', InvalidInputError],
  ['x-a-directory', InvalidInputError],
  ['x-not-a-directory', InvalidInputError],
  ['x-invalid-mode', InvalidInputError],
  ['x-invalid-owner', InvalidInputError],
  ['x-invalid-group', InvalidInputError],
  ['x-sbatch-error', ServerError],
  ['x-error', ServerError],
];

function header(h: HeaderBag, name: string): string | undefined {
  const v = h[name] ?? h[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The error class a bare status means. */
export function classForStatus(status: number): ErrorClass {
  if (status === 400 || status === 422) return InvalidInputError;
  if (status === 401) return UnauthorizedError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 408) return TimeoutError;
  if (status === 413) return TooLargeError;
  if (status === 424 || status === 502 || status === 503 || status === 504) return UnavailableError;
  if (status >= 500) return ServerError;
  return ServerError;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function plainSnippet(text: string): string {
  const stripped = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return stripped.length > 160 ? `${stripped.slice(0, 160)}...` : stripped;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}

type Fields = { location: string; name: string; message: string }[];

function fieldsOf(data: unknown): Fields | undefined {
  if (!isRecord(data) || !Array.isArray(data.fields)) return undefined;
  const out: Fields = [];
  for (const f of data.fields as unknown[]) {
    if (isRecord(f)) out.push({ location: asText(f.location), name: asText(f.name), message: asText(f.message) });
  }
  return out;
}

/** A 503 that says `maintenance` (JSON or a page): the site's words, and when to try again if it said. */
function maintenance(body: unknown, text: string, res: ErrorResponse, details: { status: number; route: string; requestId?: string }): MaintenanceError {
  const b = isRecord(body) ? body : {};
  const said = [b.message, b.description, b.detail, b.error].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? plainSnippet(text);
  const retryAfterSeconds = rateLimitWaitSeconds(res.headers);
  const back = retryAfterSeconds !== undefined ? ` (try again in ${retryAfterSeconds >= 120 ? `${Math.round(retryAfterSeconds / 60)} min` : `${retryAfterSeconds} s`})` : '';
  return new MaintenanceError(`The site is in maintenance${back}: ${redact(said)}`, { ...details, retryAfterSeconds });
}

/**
 * Maps an unexpected answer to the matching FirecrestError subclass. Every text is redacted;
 * the error carries the status and the route template, never the URL or a header value other
 * than the v1 explanation.
 */
export function errorFromResponse(res: ErrorResponse): FirecrestError {
  const e = errorOf(res);
  // A failure of the server's own is one its support may look up: the message names the request.
  if (res.requestId && res.status >= 500 && !(e instanceof MaintenanceError)) e.message = `${e.message} (request ${res.requestId})`;
  return e;
}

function errorOf(res: ErrorResponse): FirecrestError {
  const text = typeof res.body === 'string' ? res.body : Buffer.from(res.body).toString('utf8');
  const details = { status: res.status, route: res.route, requestId: res.requestId };

  if (res.status === 429) {
    const retryAfterSeconds = rateLimitWaitSeconds(res.headers);
    return new RateLimitedError(`Rate limited by the server (${res.route})${retryAfterSeconds !== undefined ? `; retry after ${retryAfterSeconds} s` : ''}`, { ...details, retryAfterSeconds });
  }

  const body = text.trim() === '' ? undefined : parseJson(text);
  if (res.status === 503 && /maintenance/i.test(text)) return maintenance(body, text, res, details);
  for (const [name, cls] of V1_HEADERS) {
    const v = header(res.headers, name);
    if (v === undefined) continue;
    // The header names the kind of failure; the body (`{"error": "chmod: cannot access '…': …"}`)
    // often has the tool's own words, with the path: both are kept.
    const said = isRecord(body) && typeof body.error === 'string' && body.error !== '' && body.error !== v ? body.error : undefined;
    return new cls(redact(said ? `${v || name}: ${said}` : v || name), details);
  }

  if (text.trim() !== '' && !isRecord(body)) {
    const ctype = header(res.headers, 'content-type') ?? 'no content type';
    const message = `The server did not answer like FirecREST (HTTP ${res.status}, ${ctype.split(';')[0]}) on ${res.route}: ${redact(plainSnippet(text))}`;
    if (res.status === 401) return new UnauthorizedError(message, details);
    return res.status === 500 ? new ServerError(message, details) : new UnavailableError(message, details);
  }

  const b = isRecord(body) ? body : {};
  const main = typeof b.message === 'string' ? b.message : typeof b.description === 'string' ? b.description : typeof b.detail === 'string' ? b.detail : undefined;
  const extra = typeof b.error === 'string' && b.error !== main ? b.error : undefined;
  const message = redact([main, extra].filter(Boolean).join(': ') || `HTTP ${res.status} on ${res.route}`);
  const causedBy = Array.isArray(b.causedBy) ? b.causedBy.map((c) => redact(String(c))) : undefined;
  const user = typeof b.user === 'string' ? b.user : header(res.headers, 'f7t-authusername');
  // Texts of the scheduler and the shell that say more than the status (upstream answers 500 for both).
  if (res.status === 500 && /Invalid job id specified/i.test(message)) return new NotFoundError(`No such job: ${message}`, { ...details, causedBy, user });
  if (res.status === 500 && /unexpected EOF while looking for matching [`']'/.test(message)) {
    return new InvalidInputError(`This server cannot handle ' in file names (its shell commands do not escape it); rename the file on the cluster or choose another name. The server said: ${message}`, { ...details, causedBy, user });
  }
  const cls = classForStatus(res.status);
  if (cls === InvalidInputError) return new InvalidInputError(message, { ...details, causedBy, user, fields: fieldsOf(b.data) });
  const plain = inWords(message, cls);
  if (plain) return new cls(plain, { ...details, causedBy: [message, ...(causedBy ?? [])], user });
  return new cls(message, { ...details, causedBy, user });
}

/**
 * Upstream v2's "Remote process failed with exit status:2 and error message:ls: cannot access
 * '/x': No such file or directory" in words ("No such file or folder: /x"); the server's text
 * stays in `causedBy`, for the log.
 */
function inWords(message: string, cls: ErrorClass): string | undefined {
  const m = /^Remote process failed with exit status:\d+(?: and error message:)?\s*([\s\S]*)$/.exec(message);
  if (!m) return undefined;
  const tool = m[1].trim();
  const path = /'([^']+)'/.exec(tool)?.[1] ?? /: (\/[^:]+):/.exec(tool)?.[1];
  if (cls === NotFoundError) return path ? `No such file or folder: ${path}` : 'No such file or folder';
  if (cls === PermissionDeniedError) return path ? `Permission denied: ${path}` : 'Permission denied';
  // Other failures keep the server's text: its exit status tells a time-out (124) from the rest.
  return undefined;
}
