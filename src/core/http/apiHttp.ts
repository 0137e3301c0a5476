/**
 * FirecREST requests: base URL + route template, bearer token, the 401 refresh-once rule, 429
 * back-off shared per origin, bounded retries of transient failures, and the mapping of every
 * unexpected answer to a typed error.
 */
import type { FormData } from 'undici';
import type { CallOptions } from '../api';
import type { ClientEvents } from '../events';
import { InvalidInputError, RateLimitedError, ServerError, UnauthorizedError } from '../errors';
import { silentLogger, type Logger } from '../logger';
import { errorFromResponse } from './errorMapping';
import { RateGate } from './rateGate';
import { backoffMs, rateLimitWaitSeconds } from './retryAfter';
import { sleep } from './sleep';
import { NetworkError, type HttpMethod, type Transport, type TransportResponse } from './transport';

/** What the HTTP layer asks for before each request (the auth folder implements it). */
export interface TokenSource {
  /**
   * A token with enough life left. `rejected` is a token the server just refused: unless a newer
   * one is already there, a new one is fetched (once, however many callers saw the refusal).
   */
  token(opts?: { rejected?: string; signal?: AbortSignal }): Promise<string>;
  /** False for a static token: a 401 cannot be cured by asking again. */
  readonly canRefresh: boolean;
  /** Ends the connections the source holds of its own (an identity provider's); called by the client's dispose. */
  close?(): Promise<void>;
}

/** A query value; `undefined` leaves the parameter out. */
export type QueryValue = string | number | boolean | undefined;

/** One FirecREST call, described by its route template. */
export interface ApiRequest {
  method: HttpMethod;
  /** Path template below the base URL, e.g. `/filesystem/{system}/ops/ls`. */
  route: string;
  /** Values of the `{name}` placeholders (URL-encoded here). */
  params?: Record<string, string>;
  /** Sent in the given order; `undefined` values are left out, empty strings are sent. */
  query?: Record<string, QueryValue>;
  json?: unknown;
  /** Multipart body; a factory because a retried request needs a fresh body. */
  form?: () => FormData;
  /** A body encoded by the caller (a multipart body undici's FormData cannot write), as a factory. */
  raw?: () => { data: Uint8Array; contentType: string };
  /** Extra request headers (v1 `X-Machine-Name`, `X-Task-Id`). */
  headers?: Record<string, string>;
  /** Statuses that mean success; any other one becomes a typed error. */
  expect: number[];
  /**
   * A listing of the user's jobs: the server runs `squeue` and `sacct` over all their recent jobs,
   * which takes far longer than other calls on a busy controller. Waits `listingTimeoutMs`.
   */
  listing?: boolean;
  /** Sending it twice leaves the same result (an upload of the same bytes): it goes again after an idle connection's close. */
  resendable?: boolean;
  call?: CallOptions;
}

/** Limits and defaults of one client's request layer. */
export interface ApiHttpOptions {
  baseUrl: string;
  requestTimeoutMs: number;
  /** How long a job listing (`ApiRequest.listing`) may take to answer; at least `requestTimeoutMs`. */
  listingTimeoutMs?: number;
  maxRateLimitRetries: number;
  maxRetryWaitMs: number;
  /** Retries of connect errors and 5xx on idempotent calls (default 2). */
  maxTransientRetries?: number;
  events?: ClientEvents;
  /** Where problems with what a server sent (a refused entry name) are reported. */
  logger?: Logger;
}

/**
 * Worth retrying a GET: gateway/SSH trouble (424, 502-504), or a 500 that is not a FirecREST answer
 * (a proxy page). A FirecREST 500 reports a remote command that failed, and would fail again.
 */
function isTransient(res: TransportResponse): boolean {
  if (res.status === 424 || res.status === 502 || res.status === 503 || res.status === 504) return true;
  if (res.status !== 500) return false;
  try {
    const body = JSON.parse(Buffer.from(res.body).toString('utf8')) as { message?: unknown; description?: unknown };
    return typeof body.message !== 'string' && typeof body.description !== 'string';
  } catch {
    return true;
  }
}

/** The authenticated request layer one client uses for all its FirecREST calls. */
export class ApiHttp {
  private readonly gate = new RateGate();
  private readonly base: string;

  readonly logger: Logger;

  constructor(
    private readonly transport: Transport,
    private readonly tokens: TokenSource,
    private readonly opts: ApiHttpOptions,
  ) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.logger = opts.logger ?? silentLogger;
  }

  /** `GET /filesystem/{system}/ops/ls`: the label logs and errors use. */
  static label(method: string, route: string): string {
    return `${method} ${route}`;
  }

  private url(req: ApiRequest): URL {
    const path = req.route.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const v = req.params?.[name];
      if (v === undefined) throw new Error(`missing route parameter ${name} for ${req.route}`);
      // Dot segments survive encodeURIComponent and would be resolved by the URL: another route.
      if (v === '' || v === '.' || v === '..') throw new InvalidInputError(`${JSON.stringify(v)} is not a valid ${name}`, { route: ApiHttp.label(req.method, req.route) });
      return encodeURIComponent(v);
    });
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.append(k, String(v));
    return url;
  }

  private timeoutFor(req: ApiRequest): number {
    return req.listing ? Math.max(this.opts.listingTimeoutMs ?? 0, this.opts.requestTimeoutMs) : this.opts.requestTimeoutMs;
  }

  /** Sends `req` until it succeeds or fails for good; resolves only with an expected status. */
  async request(req: ApiRequest): Promise<TransportResponse> {
    const route = ApiHttp.label(req.method, req.route);
    const url = this.url(req);
    const signal = req.call?.signal;
    const idempotent = req.method === 'GET';
    const maxTransient = this.opts.maxTransientRetries ?? 2;
    let rateRetries = 0;
    let transientRetries = 0;
    let rejected: string | undefined;
    /** Fresh tokens fetched for this request after a 401 (see below). */
    let refreshes = 0;
    for (let attempt = 1; ; attempt++) {
      await this.gate.wait(signal);
      const token = await this.tokens.token({ rejected, signal });
      const headers: Record<string, string> = { ...req.headers, authorization: `Bearer ${token}`, accept: 'application/json' };
      let body: string | Uint8Array | FormData | undefined;
      if (req.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.json);
      } else if (req.form) {
        body = req.form();
      } else if (req.raw) {
        const raw = req.raw();
        headers['content-type'] = raw.contentType;
        body = raw.data;
      }
      let res: TransportResponse;
      try {
        res = await this.transport.send({ method: req.method, url, route, headers, body, signal, timeoutMs: req.call?.timeoutMs ?? this.timeoutFor(req), attempt });
      } catch (e) {
        // A request that is safe to send twice (GET; PUT and the routes that say so) also goes again
        // after a close of an idle connection (uvicorn drops one after 5 s without saying so).
        const again = idempotent || (e instanceof NetworkError && e.closedIdle && (req.method === 'PUT' || req.resendable === true));
        if (e instanceof NetworkError && !e.permanent && (e.notSent || again) && transientRetries < maxTransient) {
          await this.transientWait(route, transientRetries++, maxTransient, signal);
          continue;
        }
        throw e;
      }
      if (req.expect.includes(res.status)) return res;
      // A refused token is replaced once. A token fetched for this very request and then refused
      // as *expired* was expired early by the server (revoked, or a session ended meanwhile),
      // not refused for its credentials: one more fresh token is the cure. Any other second
      // refusal, or a third, is the answer.
      if (res.status === 401 && this.tokens.canRefresh && (refreshes === 0 || (refreshes === 1 && /expired/i.test(errorFromResponse({ status: res.status, route, headers: res.headers, body: res.body }).message)))) {
        refreshes++;
        rejected = token;
        continue;
      }
      if (res.status === 429) {
        const askedSeconds = rateLimitWaitSeconds(res.headers);
        const waitMs = askedSeconds !== undefined ? askedSeconds * 1000 : backoffMs(rateRetries, 1000, this.opts.maxRetryWaitMs);
        if (rateRetries >= this.opts.maxRateLimitRetries || waitMs > this.opts.maxRetryWaitMs) {
          const why = rateRetries >= this.opts.maxRateLimitRetries ? `after ${rateRetries} retries` : `the server asked for ${Math.ceil(waitMs / 1000)} s, more than the ${Math.round(this.opts.maxRetryWaitMs / 1000)} s allowed`;
          throw new RateLimitedError(`Rate limited on ${route} (${why})`, { status: 429, route, retryAfterSeconds: askedSeconds ?? Math.ceil(waitMs / 1000) });
        }
        rateRetries++;
        this.opts.events?.onRetryWait?.({ route, reason: 'rate-limit', waitMs, attempt: rateRetries, maxAttempts: this.opts.maxRateLimitRetries });
        this.gate.block(waitMs);
        continue;
      }
      if (idempotent && isTransient(res) && transientRetries < maxTransient) {
        await this.transientWait(route, transientRetries++, maxTransient, signal);
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        // A success the route does not give: the server is not the FirecREST this client knows.
        throw new ServerError(`Unexpected HTTP ${res.status} on ${route} (expected ${req.expect.join(' or ')})`, { status: res.status, route });
      }
      const err = errorFromResponse({ status: res.status, route, headers: res.headers, body: res.body, requestId: res.requestId });
      if (res.status === 401 && !this.tokens.canRefresh) throw new UnauthorizedError(`${err.message} (the static token was refused)`, { status: 401, route, user: err.user });
      throw err;
    }
  }

  private async transientWait(route: string, retry: number, max: number, signal?: AbortSignal): Promise<void> {
    const waitMs = backoffMs(retry, 250, 4000);
    this.opts.events?.onRetryWait?.({ route, reason: 'transient', waitMs, attempt: retry + 1, maxAttempts: max });
    await sleep(waitMs, signal);
  }
}
