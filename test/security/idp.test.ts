/**
 * The gateway's identity provider and token endpoint under attack, over real HTTP (security review
 * 3, findings 2 and 4 to 7): an ID token is no API token; password, TOTP and device-code guessing
 * is slowed across sign-in attempts; a guesser does not lock out the holder of the right secret at
 * another address; an oversized token request does not leave a connection that never answers.
 * Other source addresses are other loopback addresses (127.0.0.2, 127.0.0.3), as other machines
 * would be; the guessing comes from one of its own, so that the suites sharing this gateway from
 * 127.0.0.1 are not throttled by it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { formOf, IdpBrowser, type Person } from '../support/idpBrowser';
import type { GatewayInfo } from '../support/target';
import { api, gw, requestToken, t } from '../gateway/support';

const skip = t.gateway?.issuer ? false : 'needs the local gateway with its identity provider (its throttles and accounts)';

const agents: Agent[] = [];
/** `fetch` whose connections come from `address`. */
function fetchFrom(address: string): typeof fetch {
  // undici's own connector leaves the source address to the system: a connector of ours binds it.
  const agent = new Agent({
    connect: (o, done) => {
      const socket = connect({ host: o.hostname, port: Number(o.port), localAddress: address });
      socket.once('connect', () => done(null, socket));
      socket.once('error', (e) => done(e, null));
    },
  });
  agents.push(agent);
  return ((url: string, init?: object) => undiciFetch(url, { ...init, dispatcher: agent })) as unknown as typeof fetch;
}
/** The guesser's address, and the address of the person whose account or secret is guessed at. */
const GUESSER = '127.0.0.3';
const OTHER = '127.0.0.2';

/** The start of a sign-in: the authorize URL with PKCE, and what to send with its code. */
function authorize(g: GatewayInfo): { url: string; verifier: string; redirect: string } {
  const verifier = randomBytes(32).toString('base64url');
  const redirect = 'http://127.0.0.1:43112/callback';
  const url = new URL(`${g.issuer ?? ''}/auth`);
  url.search = new URLSearchParams({
    client_id: g.publicClientId ?? '', response_type: 'code', redirect_uri: redirect, scope: 'openid profile offline_access',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: randomBytes(6).toString('hex'), nonce: 'n',
  }).toString();
  return { url: url.href, verifier, redirect };
}

/** Opens a sign-in in `browser` and returns the login form's address. */
async function loginForm(g: GatewayInfo, browser: IdpBrowser): Promise<string> {
  let url = authorize(g).url;
  for (let hop = 0; hop < 5; hop++) {
    const res = await browser.request(url);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location') ?? '', url).href;
      await res.body?.cancel();
      continue;
    }
    const f = formOf(await res.text());
    assert.ok(f, `a login form at ${url}`);
    return new URL(f.action, url).href;
  }
  assert.fail('no login form');
}

void describe('identity provider and token endpoint: guessing and token kinds', { skip }, () => {
  after(async () => { await Promise.all(agents.map((a) => a.close())); });

  void it('the API refuses the ID token of a sign-in, and accepts its access token', async () => {
    const g = gw();
    const alice = g.idpUsers?.find((u) => u.login === 'alice');
    assert.ok(alice);
    const start = authorize(g);
    let back: URL | undefined;
    await new IdpBrowser(alice, { captureCallback: (u) => { back = u; } }).browse(start.url);
    const code = back?.searchParams.get('code');
    assert.ok(code, 'signed in');
    const res = await fetch(`${g.issuer ?? ''}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: start.redirect, code_verifier: start.verifier, client_id: g.publicClientId ?? '' }).toString(),
    });
    const tokens = (await res.json()) as { access_token: string; id_token: string };
    assert.equal((await api('/status/systems', { auth: `Bearer ${tokens.access_token}` })).status, 200, 'the access token works');
    for (const path of ['/status/systems', `/compute/${t.system}/jobs`]) {
      const r = await api(path, { auth: `Bearer ${tokens.id_token}` });
      assert.equal(r.status, 401, `${path} with the ID token: ${r.text}`);
      assert.equal(r.body.message, 'Access token is invalid.');
    }
  });

  void it('password guesses for an account are slowed across sign-in attempts; the person elsewhere still signs in', async () => {
    const g = gw();
    const bob = g.idpUsers?.find((u) => u.login === 'bob');
    assert.ok(bob);
    const guesser: Person = { login: bob.login, password: 'wrong' };
    const statuses: number[] = [];
    // Each attempt ends after five failures: a new one starts at once, as an attacker's would.
    const fromGuesser = fetchFrom(GUESSER);
    for (let attempt = 0; attempt < 3; attempt++) {
      const browser = new IdpBrowser(guesser, { fetch: fromGuesser });
      const action = await loginForm(g, browser);
      for (let i = 0; i < 4; i++) {
        const r = await browser.request(action, { login: bob.login, password: `guess-${attempt}-${i}` });
        statuses.push(r.status);
        await r.body?.cancel();
      }
    }
    assert.deepEqual(statuses.slice(0, 10), Array<number>(10).fill(401), statuses.join(' '));
    assert.deepEqual(statuses.slice(10), [429, 429], statuses.join(' '));
    // The right password from the guesser's address is refused too: a 200 would confirm a guess.
    const here = new IdpBrowser(bob, { fetch: fromGuesser });
    const action = await loginForm(g, here);
    const r = await here.request(action, { login: bob.login, password: bob.password });
    assert.equal(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    // Bob at his own machine is not locked out by the guesser.
    let back: URL | undefined;
    await new IdpBrowser(bob, { fetch: fetchFrom(OTHER), captureCallback: (u) => { back = u; } }).browse(authorize(g).url);
    assert.ok(back?.searchParams.get('code'), 'bob signed in from another address');
  });

  void it('device user codes: wrong codes from one address are limited (RFC 8628 §5.1)', async () => {
    const g = gw();
    const auth = await fetch(`${g.issuer ?? ''}/device/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: g.publicClientId ?? '', scope: 'openid' }).toString(),
    });
    const device = (await auth.json()) as { user_code: string; verification_uri: string };
    const browser = new IdpBrowser({ login: 'alice', password: 'x' }, { fetch: fetchFrom(GUESSER) });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const page = await (await browser.request(device.verification_uri)).text();
      const f = formOf(page, /<form[^>]*id="op.deviceInputForm"[^>]*>/i);
      assert.ok(f, 'the code input form');
      const r = await browser.request(new URL(f.action, device.verification_uri).href, { ...f.fields, user_code: `WXYZ-${String(1000 + i).slice(-4).replace(/\d/g, (d) => 'BCDFGHJKLM'[Number(d)])}` });
      statuses.push(r.status);
      await r.body?.cancel();
    }
    assert.deepEqual(statuses.slice(-2), [429, 429], statuses.join(' '));
    assert.ok(statuses.slice(0, 10).every((s) => s !== 429), statuses.join(' '));
    // From another address the real code is taken.
    const person = g.idpUsers?.find((u) => u.login === 'alice');
    assert.ok(person);
    const elsewhere = new IdpBrowser(person, { fetch: fetchFrom(OTHER) });
    await elsewhere.browse(device.verification_uri, { userCode: device.user_code });
    assert.ok(elsewhere.result.titles.includes('Confirm the device') || elsewhere.result.titles.includes('Signed in'), elsewhere.result.titles.join(', '));
  });

  void it('an oversized token request is answered, and its connection closed rather than left hanging', async () => {
    const url = new URL(`${gw().issuer ?? ''}/token`);
    const body = `grant_type=refresh_token&refresh_token=${'a'.repeat(200 * 1024)}`;
    const outcome = await new Promise<{ answer: string; closedMs: number }>((resolve, reject) => {
      const s = connect(Number(url.port), url.hostname);
      let answer = '';
      let answeredAt = 0;
      s.on('data', (b) => {
        answer += b.toString('latin1');
        answeredAt ||= Date.now();
      });
      s.on('error', () => undefined);
      s.on('close', () => resolve({ answer, closedMs: answeredAt ? Date.now() - answeredAt : -1 }));
      s.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.write(body);
      setTimeout(() => { s.destroy(); reject(new Error(`still open 10 s later; answer: ${answer.slice(0, 200)}`)); }, 10_000).unref();
    });
    assert.match(outcome.answer, /^HTTP\/1\.1 400/);
    assert.match(outcome.answer, /request body too large/);
    assert.match(outcome.answer, /connection: close/i);
    assert.ok(outcome.closedMs >= 0 && outcome.closedMs < 5000, `closed ${outcome.closedMs} ms after the answer`);
    // A pooled client's next request gets its answer on a fresh connection.
    const d = await fetch(`${gw().issuer ?? ''}/.well-known/openid-configuration`);
    assert.equal(d.status, 200);
  });

  void it('a client id guessed at from one address stays usable for the holder of its secret at another', async () => {
    const client = gw().clients?.at(-1) ?? { clientId: t.clientId, clientSecret: t.clientSecret };
    const fromGuesser = fetchFrom(GUESSER);
    const ask = async (from: typeof fetch, secret: string): Promise<number> => (await from(t.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }).toString(),
    })).status;
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push(await ask(fromGuesser, `wrong-${i}`));
    assert.deepEqual(codes, [...Array<number>(10).fill(401), 429]);
    assert.equal(await ask(fromGuesser, client.clientSecret), 429, 'the guesser\'s address waits, whatever secret it sends');
    assert.equal(await ask(fetchFrom(OTHER), client.clientSecret), 200, 'the holder of the secret is not locked out');
    assert.equal((await requestToken(client.clientId, client.clientSecret)).status, 200, 'nor are the suites at 127.0.0.1');
  });
});
