/**
 * `POST /auth/token`: an OAuth2 client-credentials endpoint answering like Keycloak (the identity
 * provider in front of real FirecREST deployments). Credentials come in the form body
 * (`client_secret_post`) or in HTTP Basic (`client_secret_basic`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TokenService } from './auth';
import { FailureThrottle, throttleKey } from './http/failure-throttle';
import type { ResolvedClient } from './setup';

export interface TokenRouteDeps {
  tokens: TokenService;
  clients: ResolvedClient[];
  /** Read per request: the admin API can change it at run time. */
  lifetimeSeconds: () => number;
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  return { id: decoded.slice(0, i), secret: decoded.slice(i + 1) };
}

/** Failed attempts a client id may make from one address within a minute before that pair is refused for a while. */
export const MAX_FAILURES = 10;

export async function tokenRoute(app: FastifyInstance, deps: TokenRouteDeps): Promise<void> {
  // Failed token requests (a guessed secret), per client id and source address. Past the limit
  // every request of that pair is refused with 429 and Retry-After until the oldest failure leaves
  // the window, whatever secret it carries: otherwise a 200 among the 429s would confirm a guess.
  // The holder of the right secret at another address is not locked out by a guesser.
  const failures = new FailureThrottle(MAX_FAILURES);
  app.post('/auth/token', async (req, reply) => {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const field = (k: string): string | undefined => (typeof body[k] === 'string' ? body[k] : undefined);
    const grant = field('grant_type');
    if (!grant) return oauthError(reply, 400, 'invalid_request', 'Missing form parameter: grant_type');
    if (grant !== 'client_credentials') return oauthError(reply, 400, 'unsupported_grant_type', `Unsupported grant_type: ${grant}`);
    const basic = basicCredentials(req.headers.authorization);
    const id = basic?.id ?? field('client_id');
    const secret = basic?.secret ?? field('client_secret');
    if (!id) return oauthError(reply, 400, 'invalid_request', 'Missing parameter: client_id');
    const pair = throttleKey(id, req.ip);
    const wait = failures.waitSeconds(pair);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return oauthError(reply, 429, 'temporarily_unavailable', `Too many failed token requests for this client: retry after ${wait} s`);
    }
    const client = deps.clients.find((c) => c.clientId === id);
    if (!client || secret === undefined || !sameSecret(secret, client.clientSecret)) {
      failures.failed(pair);
      return oauthError(reply, 401, 'invalid_client', 'Invalid client or Invalid client credentials');
    }
    const { token, expiresIn } = await deps.tokens.issue(client.user, client.clientId, deps.lifetimeSeconds());
    return reply.header('cache-control', 'no-store').send({
      access_token: token,
      expires_in: expiresIn,
      refresh_expires_in: 0,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope: 'firecrest',
    });
  });
}
