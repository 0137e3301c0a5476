/** OAuth2 client-credentials grant (`client_secret_post` or `client_secret_basic`), as in §1.1. */
import { messageOf, RateLimitedError, TimeoutError, UnauthorizedError, UnavailableError } from '../errors';
import { redact } from '../http/redact';
import { rateLimitWaitSeconds } from '../http/retryAfter';
import type { Transport } from '../http/transport';
import type { FetchedToken } from './tokenSource';
import { expiryOf } from './tokenSource';

/** Where and how to ask for a token; the secret never leaves this object except on the wire. */
export interface ClientCredentialsConfig {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  method?: 'client_secret_post' | 'client_secret_basic';
  timeoutMs: number;
  onToken?: (e: { expiresInSeconds?: number }) => void;
}

function describeOAuthError(body: Uint8Array): string {
  const text = Buffer.from(body).toString('utf8');
  try {
    const j = JSON.parse(text) as { error?: unknown; error_description?: unknown; message?: unknown };
    const parts = [j.error, j.error_description ?? j.message].filter((p) => typeof p === 'string');
    if (parts.length) return parts.join(': ');
  } catch {
    // not JSON: fall through to a short plain snippet
  }
  const plain = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return plain ? plain.slice(0, 160) : 'no details';
}

/** A fetch function for CachedTokenSource that performs the grant through `transport`. */
export function clientCredentialsFetcher(transport: Transport, cfg: ClientCredentialsConfig): () => Promise<FetchedToken> {
  const url = new URL(cfg.tokenUrl);
  const shown = `${url.origin}${url.pathname}`;
  const route = `POST ${url.pathname}`;
  return async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (cfg.method === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${cfg.clientId}:${cfg.clientSecret}`).toString('base64')}`;
    } else {
      form.set('client_id', cfg.clientId);
      form.set('client_secret', cfg.clientSecret);
    }
    let res;
    try {
      res = await transport.send({ method: 'POST', url, route, headers, body: form.toString(), timeoutMs: cfg.timeoutMs });
    } catch (e) {
      if (e instanceof TimeoutError) throw new TimeoutError(`The token endpoint ${shown} did not answer within ${cfg.timeoutMs} ms`, { route, cause: e });
      const why = messageOf(e);
      throw new UnavailableError(`Cannot reach the token endpoint ${shown}: ${redact(why, [cfg.clientSecret])}`, { route, cause: e });
    }
    if (res.status < 200 || res.status > 299) {
      const why = redact(describeOAuthError(res.body), [cfg.clientSecret]);
      // Only a 4xx is a verdict on the credentials; a busy or broken identity provider is not.
      if (res.status === 429) {
        const retryAfterSeconds = rateLimitWaitSeconds(res.headers);
        throw new RateLimitedError(`The token endpoint ${shown} is rate limiting (HTTP 429): ${why}`, { status: 429, route, retryAfterSeconds });
      }
      if (res.status >= 500) throw new UnavailableError(`The token endpoint ${shown} failed (HTTP ${res.status}): ${why}`, { status: res.status, route });
      throw new UnauthorizedError(`The token endpoint ${shown} refused the client credentials of '${cfg.clientId}' (HTTP ${res.status}): ${why}`, { status: res.status, route });
    }
    let j: { access_token?: unknown; expires_in?: unknown };
    try {
      j = JSON.parse(Buffer.from(res.body).toString('utf8')) as typeof j;
    } catch {
      throw new UnauthorizedError(`The token endpoint ${shown} did not answer with JSON`, { status: res.status, route });
    }
    if (typeof j.access_token !== 'string' || j.access_token === '') {
      throw new UnauthorizedError(`The token endpoint ${shown} answered without an access_token`, { status: res.status, route });
    }
    const expiresIn = typeof j.expires_in === 'number' ? j.expires_in : typeof j.expires_in === 'string' ? Number(j.expires_in) || undefined : undefined;
    cfg.onToken?.({ expiresInSeconds: expiresIn });
    return { token: j.access_token, expiresAt: expiryOf(j.access_token, expiresIn, Date.now()) };
  };
}
