/** Picks the token source a profile describes: client credentials, token command, or a static token. */
import type { ClientEvents, ClientOptions } from '../client';
import { UnauthorizedError } from '../errors';
import type { Transport } from '../http/transport';
import { clientCredentialsFetcher } from './clientCredentials';
import type { OidcClient } from './oidc';
import { OidcTokenSource } from './oidcTokenSource';
import { tokenCommandFetcher } from './tokenCommand';
import { CachedTokenSource, StaticTokenSource, type TokenSource } from './tokenSource';

/** Throws UnauthorizedError when the profile lacks what its token source needs (e.g. no secret). */
export function createTokenSource(options: ClientOptions, transport: Transport, events: ClientEvents = {}): TokenSource {
  const p = options.profile;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const onToken = (e: { expiresInSeconds?: number }) => events.onToken?.(e);
  if (p.auth === 'oidc') {
    if (!p.issuer || !p.clientId) throw new UnauthorizedError(`Profile '${p.name}' signs in through OpenID Connect but has no issuer or client id`);
    const session = options.oidcSession;
    if (!session) throw new UnauthorizedError(`Not signed in to '${p.name}': sign in through the browser first`);
    let discovered: Promise<OidcClient> | undefined;
    const settings = { issuer: p.issuer, clientId: p.clientId, scopes: p.scopes, logger: options.logger, timeoutMs, caFile: p.caFile, insecureSkipTlsVerify: p.insecureSkipTlsVerify, userAgent: options.userAgent };
    const client = (): Promise<OidcClient> => {
      // A failed discovery (identity provider down) is tried again by the next refresh.
      // Loaded on first use: openid-client is a bundle of its own (scripts/build.mjs).
      discovered ??= import('./oidc.js').then((m) => m.OidcClient.discover(settings)).catch((e: unknown) => { discovered = undefined; throw e; });
      return discovered;
    };
    return new OidcTokenSource(client, session, options.logger);
  }
  if (p.tokenCommand) return new CachedTokenSource(tokenCommandFetcher(p.tokenCommand, timeoutMs, onToken));
  if (p.tokenUrl) {
    if (!p.clientId) throw new UnauthorizedError(`Profile '${p.name}' has a token URL but no client id`);
    if (!options.clientSecret) throw new UnauthorizedError(`No client secret for profile '${p.name}': sign in first`);
    return new CachedTokenSource(
      clientCredentialsFetcher(transport, { tokenUrl: p.tokenUrl, clientId: p.clientId, clientSecret: options.clientSecret, method: p.clientAuthMethod, timeoutMs, onToken }),
    );
  }
  if (options.staticToken) return new StaticTokenSource(options.staticToken);
  throw new UnauthorizedError(`Profile '${p.name}' has no token URL, token command or token`);
}
