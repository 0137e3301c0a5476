/**
 * Signing in as a person: the core's OpenID Connect client against the gateway's identity provider
 * (oidc-provider under /idp) over real HTTP. The login form is filled by the test's HTTP client.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import { OidcClient, type OidcTokens } from '../../src/core/auth/oidc';
import { OidcTokenSource } from '../../src/core/auth/oidcTokenSource';
import { createClient, SignInCheckError, SignInRequiredError, UnavailableError, type Logger } from '../../src/core/index';
import { IdpBrowser } from '../support/idpBrowser';
import { gateway, t } from './support';

const g = t.gateway;
const skip = !g?.issuer ? 'needs the gateway\'s identity provider (its login form, admin revocation and fault switches)' : false;

/** Every log line, to prove that no secret ever reaches it. */
function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: unknown, ...a: unknown[]) => { lines.push([m, ...a].map(String).join(' ')); };
  return { lines, trace: push, debug: push, info: push, warn: push, error: push };
}

function assertNoSecrets(lines: string[], secrets: (string | undefined)[]): void {
  const text = lines.join('\n');
  for (const s of secrets) if (s) assert.ok(!text.includes(s), `a secret reached the log: ${s.slice(0, 6)}…`);
  assert.doesNotMatch(text, /eyJ[A-Za-z0-9_-]{10,}\./, 'a JWT reached the log');
  assert.doesNotMatch(text, /[?&]code=[^[&\s]/, 'an authorization code reached the log');
}

function person(login = 'alice') {
  const p = g?.idpUsers?.find((u) => u.login === login);
  if (!p) throw new Error(`the gateway lists no identity provider user ${login}`);
  return p;
}

async function signIn(client: OidcClient, browser: IdpBrowser): Promise<OidcTokens> {
  let browsing: Promise<string> | undefined;
  try {
    return await client.signInWithBrowser((url) => { browsing = browser.browse(url); });
  } finally {
    // The browser's own last page (the loopback's answer) is part of what a test checks.
    await browsing?.catch(() => undefined);
  }
}

void describe('OpenID Connect sign-in', { skip }, () => {
  let log: ReturnType<typeof capturingLogger>;
  let client: OidcClient;
  before(async () => {
    log = capturingLogger();
    client = await OidcClient.discover({ issuer: g?.issuer ?? '', clientId: g?.publicClientId ?? '', logger: log });
  });
  after(async () => {
    await gateway.idp({ idTokenFault: null, deviceInterval: 5, deviceMinInterval: 5 }).catch(() => undefined);
    await client.close();
  });

  void it('auth code + PKCE through the login page gives tokens the FirecREST API accepts, as the unix user', async () => {
    const alice = person('alice');
    const browser = new IdpBrowser(alice);
    const tokens = await signIn(client, browser);
    assert.equal(browser.result.callbackStatus, 200);
    assert.equal(tokens.identity?.username, alice.user);
    assert.ok(tokens.refreshToken, 'a refresh token');
    assert.ok(tokens.expiresAt && tokens.expiresAt > Date.now());
    // The access token works on the API, through the one shared client, as that user.
    const api = await createClient({
      profile: { name: 'oidc', url: t.url, apiVersion: t.apiVersion, auth: 'oidc', issuer: g?.issuer, clientId: g?.publicClientId },
      oidcSession: { refreshToken: () => tokens.refreshToken, onRefreshToken: () => undefined, initial: tokens },
      logger: log,
    });
    try {
      const info = await api.userInfo(t.system);
      assert.equal(info.user.name, alice.user);
    } finally {
      await api.dispose();
    }
    assertNoSecrets(log.lines, [tokens.accessToken, tokens.refreshToken, alice.password]);
    assert.ok(log.lines.some((l) => /Sign-in: the browser came back/.test(l)), 'the flow\'s steps are logged');
  });

  void it('a client disposed after a refresh leaves no connection open, the identity provider\'s included', async () => {
    const tokens = await signIn(client, new IdpBrowser(person()));
    // Every socket opened from here on (the API's and the identity provider's) belongs to this client.
    const sockets: { destroyed: boolean; remotePort?: number }[] = [];
    const connected = (m: unknown) => { sockets.push((m as { socket: { destroyed: boolean; remotePort?: number } }).socket); };
    diagnostics.subscribe('undici:client:connected', connected);
    const api = await createClient({
      profile: { name: 'oidc-dispose', url: t.url, apiVersion: t.apiVersion, auth: 'oidc', issuer: g?.issuer, clientId: g?.publicClientId },
      // No access token yet: the first request discovers the identity provider and refreshes.
      oidcSession: { refreshToken: () => tokens.refreshToken, onRefreshToken: () => undefined },
      logger: log,
    });
    try {
      assert.equal((await api.userInfo(t.system)).user.name, person().user);
    } finally {
      await api.dispose();
      diagnostics.unsubscribe('undici:client:connected', connected);
    }
    assert.ok(sockets.length >= 2, `the API and the identity provider were reached (${sockets.length} socket(s))`);
    assert.deepEqual(sockets.filter((s) => !s.destroyed).map((s) => s.remotePort), [], 'no socket outlives dispose');
    await assert.rejects(api.userInfo(t.system), UnavailableError);
  });

  void it('a wrong state in the redirect is a SignInCheckError (state), and the browser is told', async () => {
    const browser = new IdpBrowser(person(), { changeCallback: (u) => { const v = new URL(u); v.searchParams.set('state', 'forged-state'); return v; } });
    await assert.rejects(signIn(client, browser), (e: unknown) => e instanceof SignInCheckError && e.check === 'state');
    assert.equal(browser.result.callbackStatus, 400);
  });

  void it('a wrong nonce in the ID token is a SignInCheckError (nonce)', async () => {
    await gateway.idp({ idTokenFault: 'nonce' });
    try {
      await assert.rejects(signIn(client, new IdpBrowser(person())), (e: unknown) => e instanceof SignInCheckError && e.check === 'nonce');
    } finally {
      await gateway.idp({ idTokenFault: null });
    }
  });

  void it('an ID token signed by a key that is not in the JWKS is a SignInCheckError (signature)', async () => {
    await gateway.idp({ idTokenFault: 'foreignKey' });
    try {
      await assert.rejects(signIn(client, new IdpBrowser(person())), (e: unknown) => e instanceof SignInCheckError && e.check === 'signature');
    } finally {
      await gateway.idp({ idTokenFault: null });
    }
  });

  void it('an issuer that names itself differently is a SignInCheckError (issuer); an IdP that is down is UnavailableError', async () => {
    const other = new URL(g?.issuer ?? '');
    other.hostname = 'localhost';
    await assert.rejects(OidcClient.discover({ issuer: other.href, clientId: g?.publicClientId ?? '' }), (e: unknown) => e instanceof SignInCheckError && e.check === 'issuer');
    await assert.rejects(OidcClient.discover({ issuer: 'http://127.0.0.1:9/idp', clientId: 'x' }), (e: unknown) => e instanceof UnavailableError && /127\.0\.0\.1:9/.test(e.message));
  });

  void it('the device flow: authorization_pending while the person has not approved, slow_down obeyed', async () => {
    // The identity provider advertises 1 s but wants 3 s between polls: the second poll is told
    // slow_down, the client adds 5 s to its interval, and keeps polling at that pace.
    await gateway.idp({ deviceInterval: 1, deviceMinInterval: 3 });
    const dlog = capturingLogger();
    const c = await OidcClient.discover({ issuer: g?.issuer ?? '', clientId: g?.publicClientId ?? '', logger: dlog });
    try {
      const device = await c.startDeviceSignIn();
      assert.match(device.userCode, /\S/);
      const done = device.complete();
      // The person approves only after the client was told to keep waiting.
      while (!dlog.lines.some((l) => /authorization_pending/.test(l))) await new Promise((r) => setTimeout(r, 200));
      const browser = new IdpBrowser(person());
      await browser.browse(device.verificationUri, { userCode: device.userCode });
      assert.deepEqual(browser.result.titles.slice(-1), ['Signed in']);
      const tokens = await done;
      assert.equal(tokens.identity?.username, person().user);
      const polls = dlog.lines.filter((l) => /POST \/idp\/token/.test(l)).map((l) => /(slow_down|authorization_pending|200)/.exec(l)?.[1]);
      assert.equal(polls[0], 'authorization_pending', polls.join(','));
      assert.equal(polls.filter((p) => p === 'slow_down').length, 1, `after slow_down the client polls slowly enough: ${polls.join(',')}`);
      assert.equal(polls.at(-1), '200', polls.join(','));
      assertNoSecrets(dlog.lines, [tokens.accessToken, tokens.refreshToken, device.userCode]);
    } finally {
      await gateway.idp({ deviceInterval: 5, deviceMinInterval: 5 });
      await c.close();
    }
  });

  void it('refresh before expiry, in the background, with rotation; a replayed refresh token ends the session', async () => {
    const tokens = await signIn(client, new IdpBrowser(person()));
    const stored: string[] = [];
    let now = Date.now();
    const source = new OidcTokenSource(async () => client, { refreshToken: () => stored.at(-1) ?? tokens.refreshToken, onRefreshToken: (r) => { stored.push(r); }, initial: tokens }, log, () => now);
    assert.equal(await source.token(), tokens.accessToken, 'a fresh token is used as it is');
    // Three quarters into its usable life: the request goes on with the current token, and a renewal starts.
    const usable = (tokens.expiresAt ?? 0) - 31_000 - now;
    now += usable * 0.8;
    assert.equal(await source.token(), tokens.accessToken, 'no request waits for the early renewal');
    while (stored.length === 0) await new Promise((r) => setTimeout(r, 50));
    const renewed = await source.token();
    assert.notEqual(renewed, tokens.accessToken);
    assert.notEqual(stored[0], tokens.refreshToken, 'the refresh token rotated');
    // The old refresh token, used again, is refused, and the identity provider ends the grant.
    await assert.rejects(client.refresh(tokens.refreshToken ?? ''), SignInRequiredError);
    assertNoSecrets(log.lines, [tokens.refreshToken, stored[0], renewed]);
  });

  void it('a session ended at the identity provider makes the next refresh a SignInRequiredError, reported once', async () => {
    const tokens = await signIn(client, new IdpBrowser(person('bob')));
    const ended: Error[] = [];
    let current = tokens.refreshToken;
    const source = new OidcTokenSource(async () => client, { refreshToken: () => current, onRefreshToken: (r) => { current = r; }, onSignInRequired: (e) => ended.push(e) }, log);
    assert.ok(await source.token(), 'the session works');
    const { grantsRevoked } = await gateway.revokeIdpSessions('bob');
    assert.ok(grantsRevoked >= 1);
    await assert.rejects(source.token({ rejected: await source.token() }), SignInRequiredError);
    await assert.rejects(source.token(), SignInRequiredError);
    assert.equal(ended.length, 1, 'one sign-in request, not one per call');
  });
});
