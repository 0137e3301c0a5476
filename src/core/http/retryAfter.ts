/**
 * How long a 429 asks us to wait: `Retry-After` (seconds or an HTTP date), else `RateLimit-Reset`
 * (same two forms), else nothing and the caller uses its jittered backoff.
 */

/** Seconds to wait from one header value; undefined when absent or unparsable. Never negative. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Math.max(0, Number(v));
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

type HeaderBag = Record<string, string | string[] | undefined>;

function first(h: HeaderBag, name: string): string | undefined {
  const v = h[name] ?? h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** The server's requested wait in seconds for a 429 answer, when it said. */
export function rateLimitWaitSeconds(headers: HeaderBag, now: number = Date.now()): number | undefined {
  return parseRetryAfter(first(headers, 'retry-after'), now) ?? parseRetryAfter(first(headers, 'ratelimit-reset'), now);
}

/**
 * Exponential backoff with "full jitter" below the exponential step: attempt 0 waits about
 * `baseMs`, each further attempt doubles, never above `capMs`.
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const step = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(step / 2 + (random() * step) / 2);
}
