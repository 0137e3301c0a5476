/**
 * A bearer token that stays valid: reused until shortly before it expires, refreshed by ONE
 * in-flight request however many callers need it at the same moment.
 */
import { CancelledError } from '../errors';
import type { TokenSource } from '../http/apiHttp';
import { jwtExpiry } from './jwt';

/** What the HTTP layer asks for before each request (declared by the HTTP layer, which uses it). */
export type { TokenSource } from '../http/apiHttp';

/** One fetched token; `expiresAt` in epoch ms, undefined when unknown. */
export interface FetchedToken {
  token: string;
  expiresAt?: number;
}

/**
 * The v2 server refuses tokens with less than 30 s left; one more second absorbs the rounding of
 * `exp` to whole seconds and the time the request spends on the wire.
 */
export const MIN_TOKEN_VALIDITY_MS = 31_000;

/** Earliest of the server's `expires_in` and the JWT's own `exp`, when either is known. */
export function expiryOf(token: string, expiresInSeconds: number | undefined, now: number): number | undefined {
  const fromExp = jwtExpiry(token);
  const candidates = [expiresInSeconds !== undefined ? now + expiresInSeconds * 1000 : undefined, fromExp !== undefined ? fromExp * 1000 : undefined];
  const known = candidates.filter((c): c is number => c !== undefined);
  return known.length ? Math.min(...known) : undefined;
}

/** `p`, or CancelledError as soon as `signal` aborts (the work behind `p` goes on for other callers). */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e: unknown) => { signal.removeEventListener('abort', onAbort); reject(e instanceof Error ? e : new Error(String(e))); },
    );
  });
}

/**
 * Caches what `fetch` returns. A token without a known expiry is fetched again for every request
 * (like the official client's token command), still shared by concurrent callers.
 */
export class CachedTokenSource implements TokenSource {
  readonly canRefresh = true;
  private current?: FetchedToken;
  private inFlight?: Promise<FetchedToken>;

  constructor(
    private readonly fetch: () => Promise<FetchedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async token(opts: { rejected?: string; signal?: AbortSignal } = {}): Promise<string> {
    const c = this.current;
    if (c && opts.rejected !== undefined && c.token !== opts.rejected && this.fresh(c)) return c.token;
    if (c && opts.rejected === undefined && this.fresh(c)) return c.token;
    return (await raceSignal(this.refresh(), opts.signal)).token;
  }

  private fresh(c: FetchedToken): boolean {
    return c.expiresAt !== undefined && this.now() < c.expiresAt - MIN_TOKEN_VALIDITY_MS;
  }

  private refresh(): Promise<FetchedToken> {
    if (!this.inFlight) {
      this.current = undefined;
      this.inFlight = this.fetch()
        .then((t) => { this.current = t; return t; })
        .finally(() => { this.inFlight = undefined; });
    }
    return this.inFlight;
  }
}

/** A token handed in by the caller; used as is until the server refuses it. */
export class StaticTokenSource implements TokenSource {
  readonly canRefresh = false;
  constructor(private readonly value: string) {}
  async token(): Promise<string> {
    return this.value;
  }
}
