/**
 * The token source of a person signed in through OpenID Connect: the access token lives in memory
 * only, the refresh token in the caller's secret store. A token that has used three quarters of
 * its usable life is renewed in the background while requests go on with it; only a token too
 * close to FirecREST's minimum remaining lifetime makes a request wait.
 */
import { messageOf, SignInRequiredError, UnavailableError } from '../errors';
import type { Logger } from '../logger';
import { silentLogger } from '../logger';
import type { OidcSession } from '../client';
import type { OidcClient } from './oidc';
import type { OidcTokens } from '../model';
import { MIN_TOKEN_VALIDITY_MS, raceSignal, type TokenSource } from './tokenSource';

export type { OidcSession } from '../client';

/** Share of a token's usable life after which it is renewed in the background. */
export const REFRESH_AHEAD_SHARE = 0.75;

interface Current {
  token: string;
  /** Epoch ms; undefined = unknown, refreshed for every request. */
  expiresAt?: number;
  obtainedAt: number;
}

export class OidcTokenSource implements TokenSource {
  readonly canRefresh = true;
  private current?: Current;
  private inFlight?: Promise<Current>;
  private ended?: SignInRequiredError;
  /** The identity provider's client once a refresh asked for it: closed with the source. */
  private opened?: Promise<OidcClient>;
  private closed = false;

  constructor(
    private readonly client: () => Promise<OidcClient>,
    private readonly session: OidcSession,
    private readonly log: Logger = silentLogger,
    private readonly now: () => number = Date.now,
  ) {
    const i = session.initial;
    if (i) this.current = { token: i.accessToken, expiresAt: i.expiresAt, obtainedAt: this.now() };
  }

  async token(opts: { rejected?: string; signal?: AbortSignal } = {}): Promise<string> {
    if (this.closed) throw new UnavailableError('The client was disposed');
    if (this.ended) throw this.ended;
    const c = this.current;
    if (c && this.usable(c) && c.token !== opts.rejected) {
      if (this.dueForRenewal(c)) this.renewInBackground();
      return c.token;
    }
    return (await raceSignal(this.refresh(), opts.signal)).token;
  }

  private usable(c: Current): boolean {
    return c.expiresAt !== undefined && this.now() < c.expiresAt - MIN_TOKEN_VALIDITY_MS;
  }

  private dueForRenewal(c: Current): boolean {
    if (c.expiresAt === undefined) return false;
    const usableMs = c.expiresAt - MIN_TOKEN_VALIDITY_MS - c.obtainedAt;
    return this.now() >= c.obtainedAt + usableMs * REFRESH_AHEAD_SHARE;
  }

  private renewInBackground(): void {
    if (this.inFlight) return;
    this.refresh().catch((e: unknown) => {
      // The current token still works: a failed early renewal is retried by the next request.
      if (!(e instanceof SignInRequiredError)) this.log.warn(`Sign-in: early renewal failed, retried on the next request: ${messageOf(e)}`);
    });
  }

  /** Closes the identity provider's connections; a token asked for afterwards is an UnavailableError. */
  async close(): Promise<void> {
    this.closed = true;
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await opened.then((c) => c.close(), () => undefined);
  }

  private refresh(): Promise<Current> {
    if (!this.inFlight) {
      this.inFlight = (async () => {
        this.opened = this.client();
        const client = await this.opened;
        const refreshToken = await this.session.refreshToken();
        let t: OidcTokens;
        try {
          if (!refreshToken) throw new SignInRequiredError('Not signed in: there is no refresh token (signed out in another window?)');
          t = await client.refresh(refreshToken);
        } catch (e) {
          if (e instanceof SignInRequiredError) {
            this.ended = e;
            this.current = undefined;
            this.session.onSignInRequired?.(e);
          }
          throw e;
        }
        if (t.refreshToken && t.refreshToken !== refreshToken) await this.session.onRefreshToken(t.refreshToken);
        const next: Current = { token: t.accessToken, expiresAt: t.expiresAt, obtainedAt: this.now() };
        this.current = next;
        return next;
      })().finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }
}
