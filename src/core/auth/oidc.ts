/**
 * Signing in as a person through the site's OpenID Connect identity provider, with openid-client
 * (discovery, PKCE, the token exchange, refresh, the device grant and ID token validation): the
 * authorization code flow with a loopback redirect (RFC 8252) and the device authorization grant
 * (RFC 8628). Every step is logged by name; no token, code, verifier or secret ever is.
 */
/* eslint-disable max-lines -- one OpenID Connect client: discovery, the browser and device sign-ins, refresh and revocation share the issuer metadata and the HTTP agent */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as OidcModule from 'openid-client' with { 'resolution-mode': 'import' };
import { Agent, fetch as undiciFetch } from 'undici';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import {
  CancelledError,
  FirecrestError,
  SignInCheckError,
  SignInRequiredError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  type SignInCheck,
} from '../errors';
import { redact } from '../http/redact';
import type { Logger } from '../logger';
import { jwtExpiry } from './jwt';
import type { OidcTokens } from '../model';

/** (Not the logger module's own: this module is a bundle of its own, loaded on first use.) */
const quiet: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

type Oidc = typeof OidcModule;
let loaded: Promise<Oidc> | undefined;
/** openid-client is ESM-only; this project's Node output is CommonJS, so it is loaded on first use. */
function openidClient(): Promise<Oidc> {
  loaded ??= import('openid-client');
  return loaded;
}

export const DEFAULT_OIDC_SCOPES = 'openid profile offline_access';

export interface OidcSettings {
  /** The issuer URL (discovery at `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  /** A public client registered at the identity provider. */
  clientId: string;
  scopes?: string;
  logger?: Logger;
  /** Per request, default 30 000 ms. */
  timeoutMs?: number;
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  userAgent?: string;
}

export type { OidcIdentity, OidcTokens } from '../model';

/** A device sign-in in progress: show `userCode` and `verificationUri`, then `complete()`. */
export interface DeviceSignIn {
  userCode: string;
  verificationUri: string;
  /** The URI with the code filled in, when the identity provider offers one. */
  verificationUriComplete?: string;
  /** Epoch ms after which the code is void. */
  expiresAt: number;
  /** Polls at the server's interval (slower after `slow_down`) until the person has approved. */
  complete(signal?: AbortSignal): Promise<OidcTokens>;
}

const MAX_IDP_BODY = 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The check a failing openid-client/oauth4webapi error names, if it is a validation failure. */
function checkOf(e: unknown): SignInCheck | undefined {
  // openid-client wraps oauth4webapi's error, whose `cause` names the attribute or claim.
  const chain: { code?: string; message?: string; attribute?: string; claim?: string }[] = [];
  for (let c: unknown = e; c && typeof c === 'object' && chain.length < 5; c = (c as { cause?: unknown }).cause) chain.push(c);
  const err = { code: chain.map((c) => c.code ?? '').join(' '), message: chain.map((c) => c.message ?? '').join(' | ') };
  const what = chain.map((c) => c.attribute ?? c.claim).find((w) => w !== undefined);
  const msg = err.message;
  if (what === 'state' || /"state"/.test(msg)) return 'state';
  if (what === 'nonce' || /"nonce"/.test(msg)) return 'nonce';
  if (what === 'issuer' || what === 'iss' || /issuer|"iss"/.test(msg)) return 'issuer';
  if (/SIGNATURE|KEY_SELECTION/.test(err.code ?? '') || /signature|key/i.test(msg)) return 'signature';
  if (/code_verifier|PKCE/i.test(msg)) return 'pkce';
  if (typeof err.code === 'string' && /^OAUTH_/.test(err.code)) return 'response';
  return undefined;
}

/** A FirecrestError found in an error's cause chain (our fetch's own failure, wrapped by the library). */
function ownError(e: unknown): FirecrestError | undefined {
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof FirecrestError) return c;
  }
  return undefined;
}

/** A thin typed layer over openid-client for one identity provider and public client. */
export class OidcClient {
  private constructor(
    private readonly oidc: Oidc,
    private readonly config: OidcModule.Configuration,
    private readonly settings: OidcSettings,
    private readonly log: Logger,
    private readonly agent: Agent,
  ) {}

  get issuer(): string {
    return this.config.serverMetadata().issuer;
  }

  get scopes(): string {
    return this.settings.scopes?.trim() || DEFAULT_OIDC_SCOPES;
  }

  get supportsDeviceFlow(): boolean {
    return !!this.config.serverMetadata().device_authorization_endpoint;
  }

  /** Reads the issuer's discovery document. Rejects with UnavailableError (down), SignInCheckError (issuer mismatch). */
  static async discover(settings: OidcSettings): Promise<OidcClient> {
    const log = settings.logger ?? quiet;
    let url: URL;
    try {
      url = new URL(settings.issuer);
    } catch {
      throw new UnauthorizedError(`The issuer "${settings.issuer}" is not a URL`);
    }
    const insecure = url.protocol === 'http:';
    if (insecure && !LOOPBACK.has(url.hostname)) {
      throw new UnauthorizedError(`The issuer ${url.origin} uses plain http: identity providers must use https (http only on this machine's loopback)`);
    }
    const oidc = await openidClient();
    const ca = settings.caFile ? [...rootCertificates, readFileSync(settings.caFile, 'utf8')] : undefined;
    const agent = new Agent({ connect: { ca, rejectUnauthorized: !settings.insecureSkipTlsVerify } });
    const timeoutSeconds = Math.ceil((settings.timeoutMs ?? 30_000) / 1000);
    const fetchVia = OidcClient.fetcher(agent, log, settings.userAgent);
    log.info(`Sign-in: reading the identity provider's configuration at ${url.origin}${url.pathname}`);
    try {
      const config = await oidc.discovery(url, settings.clientId, undefined, oidc.None(), {
        [oidc.customFetch]: fetchVia,
        timeout: timeoutSeconds,
        execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
      });
      return new OidcClient(oidc, config, settings, log, agent);
    } catch (e) {
      await agent.close().catch(() => undefined);
      throw OidcClient.mapError(e, `Cannot read the configuration of the identity provider ${url.origin}${url.pathname}`);
    }
  }

  /** openid-client's fetch: undici with the profile's TLS settings, a size cap, and global Response objects. */
  private static fetcher(agent: Agent, log: Logger, userAgent?: string) {
    return async (input: string, init: OidcModule.CustomFetchOptions): Promise<Response> => {
      const url = new URL(input);
      const route = `${init.method} ${url.pathname}`;
      let res;
      try {
        res = await undiciFetch(url, {
          method: init.method,
          headers: { ...(init.headers), 'user-agent': userAgent ?? 'firecrest-vscode' },
          body: init.body as string | undefined,
          redirect: 'manual',
          signal: init.signal,
          dispatcher: agent,
        });
      } catch (e) {
        if (init.signal?.aborted) throw new TimeoutError(`The identity provider did not answer ${route} in time`, { route, cause: e });
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        throw new UnavailableError(`Cannot reach the identity provider at ${url.origin} (${route}): ${cause?.code ?? cause?.message ?? String(e)}`, { route, cause: e });
      }
      const length = Number(res.headers.get('content-length') ?? 0);
      if (length > MAX_IDP_BODY) {
        await res.body?.cancel().catch(() => undefined);
        throw new UnavailableError(`The identity provider's answer to ${route} is too large (${length} bytes)`, { route, status: res.status });
      }
      const body = new Uint8Array(await res.arrayBuffer());
      if (body.byteLength > MAX_IDP_BODY) throw new UnavailableError(`The identity provider's answer to ${route} is too large`, { route, status: res.status });
      // Only for the log line: the OAuth error code, when the answer is a JSON object that has one.
      let error: unknown;
      try {
        error = (JSON.parse(Buffer.from(body).toString('utf8')) as { error?: unknown } | null)?.error;
      } catch {
        error = undefined;
      }
      log.debug(`Sign-in: ${route} ${res.status}${typeof error === 'string' ? ` ${error}` : ''}`);
      const nullBody = res.status === 204 || res.status === 304 || (res.status >= 100 && res.status < 200);
      return new Response(nullBody ? null : body, { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()) });
    };
  }

  /** A library or transport failure as one of this project's typed errors, secrets scrubbed. */
  static mapError(e: unknown, context: string): FirecrestError {
    const own = ownError(e);
    if (own instanceof CancelledError || own instanceof UnavailableError || own instanceof TimeoutError) return own;
    if (e instanceof FirecrestError) return e;
    if ((e as { name?: string }).name === 'AbortError' || (e as { name?: string }).name === 'TimeoutError') {
      return new TimeoutError(`${context}: the identity provider did not answer in time`, { cause: e });
    }
    const err = e as { error?: unknown; error_description?: unknown; status?: unknown; message?: string };
    const detail = redact(
      [err.error, err.error_description].filter((p) => typeof p === 'string').join(': ') || (err.message ?? String(e)),
      [],
    );
    const status = typeof err.status === 'number' ? err.status : undefined;
    if (typeof err.error === 'string') {
      if (status !== undefined && status >= 500) return new UnavailableError(`${context}: the identity provider failed (HTTP ${status}): ${detail}`, { status });
      if (err.error === 'invalid_grant') return new SignInRequiredError(`${context}: the identity provider ended the session (${detail}). Sign in again.`, { status });
      return new UnauthorizedError(`${context}: ${detail}`, { status });
    }
    const check = checkOf(e);
    if (check) return new SignInCheckError(`${context}: the identity provider's answer failed the ${check} check (${detail}); nothing of it was used`, check, { cause: e });
    return new UnauthorizedError(`${context}: ${detail}`, { cause: e });
  }

  private tokensOf(r: OidcModule.TokenEndpointResponse & OidcModule.TokenEndpointResponseHelpers, withIdentity: boolean): OidcTokens {
    const expiresIn = typeof r.expires_in === 'number' ? r.expires_in : undefined;
    const exp = jwtExpiry(r.access_token);
    const known = [expiresIn !== undefined ? Date.now() + expiresIn * 1000 : undefined, exp !== undefined ? exp * 1000 : undefined].filter((v): v is number => v !== undefined);
    const out: OidcTokens = { accessToken: r.access_token, expiresAt: known.length ? Math.min(...known) : undefined, refreshToken: r.refresh_token };
    if (withIdentity) {
      const claims = r.claims();
      if (!claims) throw new SignInCheckError('The identity provider answered without an ID token', 'response');
      out.identity = {
        subject: claims.sub,
        username: typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined,
        name: typeof claims.name === 'string' ? claims.name : undefined,
      };
    }
    return out;
  }

  /**
   * The authorization code flow with PKCE (S256), `state` and `nonce`: a loopback listener on a
   * port chosen for this sign-in only, `openBrowser` shows the identity provider's page, and the
   * redirect back ends it. Rejects with SignInCheckError, UnauthorizedError (refused or
   * cancelled at the identity provider), CancelledError or TimeoutError (default 5 minutes).
   */
  async signInWithBrowser(openBrowser: (url: string) => Promise<void> | void, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<OidcTokens> {
    const { oidc, config, log } = this;
    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = await oidc.calculatePKCECodeChallenge(verifier);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const loopback = await LoopbackRedirect.open();
    try {
      const redirectUri = loopback.redirectUri;
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: this.scopes,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      log.info(`Sign-in: waiting for the browser sign-in at ${url.origin} (redirect to ${redirectUri})`);
      const callback = loopback.next(opts.signal, opts.timeoutMs ?? 5 * 60_000);
      await openBrowser(url.href);
      const { url: returned, respond } = await callback;
      log.info('Sign-in: the browser came back; exchanging the code');
      try {
        const result = await oidc.authorizationCodeGrant(config, returned, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
        const tokens = this.tokensOf(result, true);
        respond(true, 'You are signed in. You can close this tab and return to the editor.');
        log.info(`Sign-in: signed in as ${tokens.identity?.username ?? tokens.identity?.subject ?? 'unknown'}`);
        return tokens;
      } catch (e) {
        const mapped = OidcClient.mapError(e, 'Sign-in failed');
        respond(false, mapped.message);
        throw mapped;
      }
    } finally {
      loopback.close();
    }
  }

  /** Starts the device authorization grant. Rejects with UnauthorizedError when the provider has no device endpoint. */
  async startDeviceSignIn(): Promise<DeviceSignIn> {
    const { oidc, config, log } = this;
    if (!this.supportsDeviceFlow) throw new UnauthorizedError(`The identity provider ${this.issuer} does not offer the device sign-in`);
    const nonceless = { scope: this.scopes };
    let started: OidcModule.DeviceAuthorizationResponse;
    try {
      started = await oidc.initiateDeviceAuthorization(config, nonceless);
    } catch (e) {
      throw OidcClient.mapError(e, 'Cannot start the device sign-in');
    }
    log.info(`Sign-in: device code issued; polling every ${started.interval ?? 5} s until it is approved`);
    const expiresAt = Date.now() + started.expires_in * 1000;
    return {
      userCode: started.user_code,
      verificationUri: started.verification_uri,
      verificationUriComplete: started.verification_uri_complete,
      expiresAt,
      complete: async (signal?: AbortSignal) => {
        try {
          const result = await oidc.pollDeviceAuthorizationGrant(config, started, undefined, { signal });
          const tokens = this.tokensOf(result, true);
          log.info(`Sign-in: device approved; signed in as ${tokens.identity?.username ?? tokens.identity?.subject ?? 'unknown'}`);
          return tokens;
        } catch (e) {
          if (signal?.aborted) throw new CancelledError('The device sign-in was cancelled');
          const err = e as { error?: unknown };
          if (err.error === 'expired_token') throw new UnauthorizedError('The device code expired before it was approved: start the sign-in again');
          if (err.error === 'access_denied') throw new UnauthorizedError('The sign-in was refused at the identity provider');
          throw OidcClient.mapError(e, 'The device sign-in failed');
        }
      },
    };
  }

  /**
   * A new access token from the refresh token. With rotation the answer carries a new refresh
   * token that replaces the old one. SignInRequiredError when the session is over.
   */
  async refresh(refreshToken: string, signal?: AbortSignal): Promise<OidcTokens> {
    try {
      const result = await this.oidc.refreshTokenGrant(this.config, refreshToken);
      const tokens = this.tokensOf(result, false);
      this.log.info(`Sign-in: access token refreshed${tokens.refreshToken && tokens.refreshToken !== refreshToken ? ' (refresh token rotated)' : ''}`);
      return tokens;
    } catch (e) {
      if (signal?.aborted) throw new CancelledError();
      throw OidcClient.mapError(e, 'Cannot renew the sign-in');
    }
  }

  /** Revokes a refresh token at the identity provider (sign-out). Failures are logged, not thrown. */
  async revoke(refreshToken: string): Promise<boolean> {
    if (!this.config.serverMetadata().revocation_endpoint) return false;
    try {
      await this.oidc.tokenRevocation(this.config, refreshToken, { token_type_hint: 'refresh_token' });
      this.log.info('Sign-out: the refresh token was revoked at the identity provider');
      return true;
    } catch (e) {
      this.log.warn(`Sign-out: the identity provider did not revoke the refresh token: ${OidcClient.mapError(e, 'revocation').message}`);
      return false;
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

/** The one-shot loopback listener of a browser sign-in (RFC 8252 §7.3): 127.0.0.1, a free port, `/callback`. */
class LoopbackRedirect {
  private waiting?: (r: { url: URL; respond: (ok: boolean, text: string) => void }) => void;

  private constructor(private readonly server: Server, readonly redirectUri: string) {}

  static async open(): Promise<LoopbackRedirect> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const lr = new LoopbackRedirect(server, `http://127.0.0.1:${port}/callback`);
    server.on('request', (req, res) => lr.onRequest(req, res));
    return lr;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.redirectUri);
    if (req.method !== 'GET' || url.pathname !== '/callback' || !this.waiting) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const deliver = this.waiting;
    this.waiting = undefined;
    deliver({
      url,
      respond: (ok, text) => {
        const title = ok ? 'Signed in' : 'Sign-in failed';
        const esc = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
        res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' })
          .end(`<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui,sans-serif;margin:40px"><h1>${title}</h1><p>${esc}</p></body></html>`);
      },
    });
  }

  /** The first request to /callback; later ones get 404. */
  next(signal: AbortSignal | undefined, timeoutMs: number): Promise<{ url: URL; respond: (ok: boolean, text: string) => void }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new TimeoutError(`No sign-in came back from the browser within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const onAbort = () => {
        clearTimeout(timer);
        this.waiting = undefined;
        reject(new CancelledError('The sign-in was cancelled'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = (r) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
    });
  }

  /** Stops listening; the answer already written still reaches the browser. */
  close(): void {
    this.server.close();
    this.server.closeIdleConnections();
  }
}
