/**
 * Raw HTTP exchanges: one keep-alive undici Pool per origin, per-request timeouts, caller
 * cancellation, TLS options of the profile, and the one debug line per request. Knows nothing
 * about tokens or FirecREST error bodies (that is `ApiHttp`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { buildConnector, Pool, type FormData } from 'undici';
import { CancelledError, ResponseTooLargeError, TimeoutError, UnavailableError } from '../errors';
import type { ClientEvents } from '../events';
import type { Logger } from '../logger';
import { redact } from './redact';

/** The methods FirecREST uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One raw exchange; the URL never reaches a log or an error, only `route` does. */
export interface TransportRequest {
  method: HttpMethod;
  url: URL;
  /** `GET /filesystem/{system}/ops/ls`: what logs and errors show instead of the URL. */
  route: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | FormData;
  signal?: AbortSignal;
  timeoutMs: number;
  /** 1-based attempt number, for the log and the events. */
  attempt?: number;
  /** The most bytes of body read; past it the answer is dropped (default: `bodyLimitFor(route)`). */
  maxBodyBytes?: number;
}

/** The cap of an ordinary JSON answer. */
export const JSON_BODY_LIMIT = 4 * 1024 * 1024;
/** The cap of listings (folders, jobs, accounting, nodes, tasks) and direct downloads. */
export const LISTING_BODY_LIMIT = 256 * 1024 * 1024;
const LISTING_ROUTE = /\/(ls|jobs|acct|nodes|partitions|reservations|tasks|download|view|head|tail)(\/|$|\s|\?)/;

/** How many bytes an answer of `route` (`GET /filesystem/{system}/ops/ls`) may have. */
export function bodyLimitFor(route: string): number {
  return LISTING_ROUTE.test(route) ? LISTING_BODY_LIMIT : JSON_BODY_LIMIT;
}

/** Reads `body` whole, refusing (and dropping the connection of) one past `limit` bytes. */
async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(e?: Error): unknown }, headers: Record<string, string | string[] | undefined>, limit: number, route: string, status: number): Promise<Uint8Array> {
  const tooLarge = (): ResponseTooLargeError => new ResponseTooLargeError(`The answer to ${route} is larger than ${limit} bytes, the most this client reads of it: it was not read further (HTTP ${status})`, { route, status, limit });
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** A complete answer (the body read in full). */
export interface TransportResponse {
  /** The `X-Request-ID` the exchange carried. */
  requestId: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/**
 * A network failure; `notSent` is true when nothing can have reached the server (safe to retry),
 * `permanent` when retrying cannot help (a certificate the profile does not trust).
 */
export class NetworkError extends UnavailableError {
  /**
   * `closedIdle`: the server closed a kept-alive connection that had been silent (closedWhileIdle),
   * most likely without reading the request. Not proof: only requests that are safe to send twice
   * go again at once; a submission is looked for first, and sent again only when it is not there.
   */
  constructor(message: string, readonly notSent: boolean, readonly permanent: boolean, cause: unknown, route: string, readonly closedIdle = false, origin?: string) {
    super(message, { cause, route, origin });
  }
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

/**
 * A kept-alive connection that the server closed while it was idle, as the request went out: the
 * socket had carried earlier answers (bytes read), had been silent for a second or more, and
 * closed before this one's status line. The server closes such a connection without reading what
 * arrived on it. A connection's first
 * request never counts, nor one on a connection that answered within the last second; still a
 * server that acted and then dropped the connection looks the same, so the callers decide what
 * may be sent again (NetworkError.closedIdle).
 */
export function closedWhileIdle(e: unknown, lastDataAt: (localPort: number) => number | undefined, now = performance.now()): boolean {
  const err = e as { code?: string; socket?: { bytesRead?: number; localPort?: number } };
  if (err.code !== 'UND_ERR_SOCKET' || !((err.socket?.bytesRead ?? 0) > 0) || err.socket?.localPort === undefined) return false;
  // Servers close a kept-alive connection after seconds of silence; one that answered a moment
  // ago and then dropped this request may have acted on it.
  const last = lastDataAt(err.socket.localPort);
  return last !== undefined && now - last >= IDLE_CLOSE_MIN_MS;
}

/** The shortest silence after which a server's close counts as an idle close. */
const IDLE_CLOSE_MIN_MS = 1000;

/** Per-profile transport settings. */
export interface TransportOptions {
  logger: Logger;
  events?: ClientEvents;
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  userAgent?: string;
  /** Literal secrets the log must never show (the client secret). */
  secrets?: () => (string | undefined)[];
  /** After this long without an answer a request reports `onNoAnswerYet` (default 4000 ms). */
  slowAfterMs?: number;
}

/** Owns the connection pools of one client; `close()` ends them all. */
export class Transport {
  private readonly pools = new Map<string, Pool>();
  /** Local port of each open connection → when it last received data (performance.now()). */
  private readonly lastData = new Map<number, { socket: object; at: number }>();
  private ca?: string[];
  private closed = false;
  /**
   * Settles a macrotask after the last answer's body ended: undici frees the connection only then.
   * A request that follows at once waits for it and reuses the connection instead of opening
   * another; an answer nobody follows up on costs no wait.
   */
  private released?: Promise<void>;

  constructor(private readonly opts: TransportOptions) {
    if (opts.caFile) this.ca = [...rootCertificates, readFileSync(opts.caFile, 'utf8')];
    if (opts.insecureSkipTlsVerify) opts.logger.warn('TLS certificate verification is OFF for this connection profile (insecureSkipTlsVerify)');
  }

  private pool(origin: string): Pool {
    if (this.closed) throw new UnavailableError('The client was disposed');
    let p = this.pools.get(origin);
    if (!p) {
      const base = buildConnector(origin.startsWith('https:') ? { ca: this.ca, rejectUnauthorized: !this.opts.insecureSkipTlsVerify } : {});
      // Each connection's last received byte, for telling a connection the server closed while idle (closedWhileIdle).
      const connect: buildConnector.connector = (o, done) => base(o, (err, socket) => {
        if (socket) {
          const port = socket.localPort;
          // Per chunk only a number on the connection's own record (no map lookup, no allocation).
          const entry = { socket, at: performance.now() };
          if (port !== undefined) this.lastData.set(port, entry);
          socket.on('data', () => { entry.at = performance.now(); });
          // Forgotten a little after the close (the request it failed looks it up first), unless
          // a new connection has the port by then.
          socket.once('close', () => {
            if (port !== undefined) setTimeout(() => { if (this.lastData.get(port)?.socket === socket) this.lastData.delete(port); }, 1000).unref();
          });
        }
        if (err) done(err, null);
        else done(null, socket);
      });
      // An idle connection is kept as long as the server's `Keep-Alive: timeout=N` says (less 1 s,
      // at most 30 s); without the header 4 s: uvicorn, as upstream v2 runs it, drops one idle
      // for 5 s without saying so.
      p = new Pool(origin, { connections: 16, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 30_000, keepAliveTimeoutThreshold: 1_000, headersTimeout: 0, bodyTimeout: 0, connect });
      this.pools.set(origin, p);
    }
    return p;
  }

  /** One exchange. Rejects with CancelledError, TimeoutError or NetworkError; any status resolves. */
  async send(req: TransportRequest): Promise<TransportResponse> {
    if (req.signal?.aborted) throw new CancelledError('Cancelled', { route: req.route });
    if (this.released) await this.released;
    const started = performance.now();
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(), req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timer.signal]) : timer.signal;
    // A fresh id per exchange: upstream v2 logs it, so a site's support can find the call.
    const requestId = randomUUID();
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent ?? 'firecrest-vscode', 'x-request-id': requestId, ...req.headers };
    const slowAfterMs = this.opts.slowAfterMs ?? 4000;
    const slow = this.opts.events?.onNoAnswerYet && slowAfterMs < req.timeoutMs
      ? setTimeout(() => this.opts.events?.onNoAnswerYet?.({ route: req.route, waitedMs: slowAfterMs }), slowAfterMs)
      : undefined;
    let status: number | undefined;
    try {
      const res = await this.pool(req.url.origin).request({
        method: req.method,
        path: `${req.url.pathname}${req.url.search}`,
        headers,
        body: req.body,
        signal,
      });
      clearTimeout(slow);
      status = res.statusCode;
      this.noteServerClock(res.headers.date);
      const body = await readCapped(res.body, res.headers, req.maxBodyBytes ?? bodyLimitFor(req.route), req.route, res.statusCode);
      const released = new Promise<void>((r) => setImmediate(r));
      this.released = released;
      void released.then(() => { if (this.released === released) this.released = undefined; });
      return { requestId, status: res.statusCode, headers: res.headers, body };
    } catch (e) {
      if (e instanceof ResponseTooLargeError) throw e;
      if (req.signal?.aborted) throw new CancelledError('Cancelled', { route: req.route, cause: e });
      if (timer.signal.aborted) throw new TimeoutError(`No answer within ${req.timeoutMs} ms on ${req.route}`, { route: req.route, status, cause: e });
      throw this.networkError(e, req, status !== undefined);
    } finally {
      clearTimeout(t);
      clearTimeout(slow);
      const durationMs = Math.round(performance.now() - started);
      this.opts.logger.debug(`${req.route} ${status ?? 'failed'} ${durationMs}ms${(req.attempt ?? 1) > 1 ? ` (attempt ${req.attempt})` : ''} [request ${requestId}]`);
      // The event has its own `method`: its route is the bare path template.
      this.opts.events?.onRequest?.({ method: req.method, route: req.route.replace(/^[A-Z]+ /, ''), status, durationMs, attempt: req.attempt ?? 1 });
    }
  }

  /**
   * The server's clock as a lower bound (HTTP `Date` has whole seconds, cut down): the newest
   * answer's `Date` less the client's clock when it came.
   */
  private clockOffsetMs?: number;

  private noteServerClock(date: string | string[] | undefined): void {
    const at = Date.parse(Array.isArray(date) ? date[0] : date ?? '');
    if (Number.isFinite(at)) this.clockOffsetMs = at - Date.now();
  }

  /** The server's time now, not later than it is (the client's clock until an answer said). */
  serverNow(): number {
    return Date.now() + (this.clockOffsetMs ?? 0);
  }

  private networkError(e: unknown, req: TransportRequest, answered: boolean): NetworkError {
    const err = e as { code?: string; message?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code ?? '';
    const what = redact(err.message ?? String(e), this.opts.secrets?.() ?? []);
    const tls = /CERT|TLS|SSL|SIGNED/.test(code);
    const hint = tls ? ' (the server certificate is not trusted: set the profile\'s caFile to the site CA)' : '';
    const stale = !answered && closedWhileIdle(e, (port) => this.lastData.get(port)?.at);
    if (stale) this.opts.logger.debug(`${req.route}: the server closed the connection, which had been idle, before answering`);
    return new NetworkError(`Cannot reach ${req.url.origin} (${req.route}): ${code ? `${code} ` : ''}${what}${hint}`, NOT_SENT_CODES.has(code), tls, e, req.route, stale, req.url.origin);
  }

  /**
   * Whether anything answers at `url` (a `…/status/systems`) within `timeoutMs`: one request, no token, no retry. Any
   * HTTP status is an answer (401 without a token is the usual one), except a proxy's 502-504 for
   * a server behind it that is down.
   */
  async ping(url: URL, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    try {
      const res = await this.send({ method: 'GET', url, route: 'GET /status/systems', signal, timeoutMs, maxBodyBytes: 64 * 1024 });
      return ![502, 503, 504].includes(res.status);
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      return e instanceof ResponseTooLargeError;
    }
  }

  /** Closes every pool. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
  }
}
