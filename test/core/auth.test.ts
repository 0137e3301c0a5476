import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RateLimitedError, UnauthorizedError, UnavailableError, createClient, type ClientEvents } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { expireTokens } from '../reliability/admin';
import { client, clientOptions, gateway, t } from './support';

async function rawToken(): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
  const res = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  return ((await res.json()) as { access_token: string }).access_token;
}

function recorder() {
  const statuses: number[] = [];
  let tokens = 0;
  const events: ClientEvents = {
    onRequest: (e) => { if (!e.route.includes('token')) statuses.push(e.status ?? 0); },
    onToken: () => { tokens++; },
  };
  return { events, statuses, tokens: () => tokens };
}

void describe('authentication', () => {
  let tmp: string;
  before(() => { tmp = mkdtempSync(join(tmpdir(), 'f7t-core-auth-')); });
  after(() => { rmSync(tmp, { recursive: true, force: true }); });

  void it('a bad secret is UnauthorizedError naming the token URL and the OAuth error, never the secret', async () => {
    const bad = 'definitely-not-the-secret-42';
    const c = await client({ clientSecret: bad });
    try {
      await assert.rejects(c.systems(), (e: unknown) => {
        assert.ok(e instanceof UnauthorizedError, String(e));
        const u = new URL(t.tokenUrl);
        assert.ok(e.message.includes(`${u.origin}${u.pathname}`), e.message);
        assert.match(e.message, /invalid_client|unauthori[sz]ed/i);
        assert.ok(!e.message.includes(bad) && !e.message.includes(t.clientSecret));
        assert.ok(!JSON.stringify(e).includes(bad));
        return true;
      });
    } finally {
      await c.dispose();
    }
  });

  void it('an unreachable token URL is UnavailableError naming it', async () => {
    const c = await client({}, { tokenUrl: 'http://127.0.0.1:9/auth/token' });
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnavailableError && e.message.includes('http://127.0.0.1:9/auth/token'));
    } finally {
      await c.dispose();
    }
  });

  void it('an unreachable FirecREST URL is UnavailableError carrying the origin it could not reach', async () => {
    const c = await client({}, { url: 'http://127.0.0.1:9/api' });
    try {
      await assert.rejects(c.systems(), (e: unknown) => {
        assert.ok(e instanceof UnavailableError, String(e));
        assert.equal(e.origin, 'http://127.0.0.1:9');
        return true;
      });
    } finally {
      await c.dispose();
    }
  });

  void it('client_secret_basic works, and concurrent first calls share one token request', async () => {
    const r = recorder();
    const c = await client({}, { clientAuthMethod: 'client_secret_basic' }, r.events);
    try {
      await Promise.all(Array.from({ length: 8 }, () => c.systems()));
      assert.equal(r.tokens(), 1);
    } finally {
      await c.dispose();
    }
  });

  void it('a failing identity provider is UnavailableError, a rate-limiting one RateLimitedError (not a credentials verdict)', async () => {
    // The gateway's fault switches do not cover its token endpoint: a tiny local one answers instead.
    const answers: [number, Record<string, string>, string][] = [
      [503, { 'content-type': 'text/html' }, '<h1>Service Unavailable</h1>'],
      [429, { 'retry-after': '7', 'content-type': 'application/json' }, '{"error": "slow_down"}'],
    ];
    let n = 0;
    const idp = createServer((_req, res) => {
      const [status, headers, body] = answers[Math.min(n++, answers.length - 1)];
      res.writeHead(status, headers).end(body);
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    const tokenUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/realms/x/token`;
    const c = await client({}, { tokenUrl });
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnavailableError && e.status === 503 && e.message.includes(tokenUrl));
      await assert.rejects(c.systems(), (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 7 && e.message.includes('slow_down'));
    } finally {
      await c.dispose();
      await new Promise((r) => idp.close(r));
    }
  });

  void it('a missing secret is UnauthorizedError before any request', async () => {
    await assert.rejects(createClient(clientOptions({ clientSecret: undefined })), UnauthorizedError);
  });

  void it('the token expires mid-run: refreshed in time, no call fails, no 401', { skip: gatewayOnly() }, async () => {
    const before = await gateway.getSettings();
    await gateway.settings({ tokenLifetimeSeconds: 35 });
    const r = recorder();
    const c = await client({}, {}, r.events);
    try {
      const until = Date.now() + 9_000;
      let calls = 0;
      while (Date.now() < until) {
        await c.systems();
        calls++;
        await new Promise((res) => setTimeout(res, 250));
      }
      assert.ok(calls > 10);
      assert.ok(r.tokens() >= 2, `tokens fetched: ${r.tokens()}`);
      assert.ok(!r.statuses.includes(401), `statuses ${r.statuses.join(',')}`);
    } finally {
      await c.dispose();
      await gateway.settings({ tokenLifetimeSeconds: before.tokenLifetimeSeconds });
    }
  });

  void it('a refused token: exactly one refresh and one retry (token command)', async () => {
    const good = await rawToken();
    const goodFile = join(tmp, 'good');
    const count = join(tmp, 'count');
    writeFileSync(goodFile, good);
    writeFileSync(count, '');
    // First run prints a token the server refuses, later runs the real one.
    const cmd = `echo x >> ${count}; if [ "$(wc -l < ${count})" -le 1 ]; then echo not-a-valid-token; else cat ${goodFile}; fi`;
    const r = recorder();
    const c = await createClient({ profile: { name: 'cmd', url: t.url, apiVersion: 'v2', tokenCommand: cmd } }, r.events);
    try {
      const systems = await c.systems();
      assert.ok(systems.length > 0);
      assert.deepEqual(r.statuses, [401, 200]);
      assert.equal(readFileSync(count, 'utf8').trim().split('\n').length, 2);
    } finally {
      await c.dispose();
    }
  });

  void it('a token refused again after the refresh is UnauthorizedError (no loop)', async () => {
    const r = recorder();
    const c = await createClient({ profile: { name: 'cmd', url: t.url, apiVersion: 'v2', tokenCommand: 'echo still-not-valid' } }, r.events);
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnauthorizedError && e.status === 401);
      assert.deepEqual(r.statuses, [401, 401]);
    } finally {
      await c.dispose();
    }
  });

  void it('a fresh token the server expired early is replaced once more; a third refusal is the answer', { skip: gatewayOnly() }, async () => {
    // The token command prints a token the gateway has already expired (as a revocation does),
    // every time: refused as expired, replaced, refused as expired again, replaced once more, then
    // the client gives the answer instead of looping.
    const stale = await rawToken();
    await expireTokens();
    const r = recorder();
    const c = await createClient({ profile: { name: 'cmd', url: t.url, apiVersion: 'v2', tokenCommand: `echo ${stale}` } }, r.events);
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnauthorizedError && /expired/i.test(e.message));
      assert.deepEqual(r.statuses, [401, 401, 401]);
    } finally {
      await c.dispose();
    }
  });

  void it('a static token is used as is; when refused there is no retry', async () => {
    const ok = await createClient({ profile: { name: 's', url: t.url, apiVersion: 'v2' }, staticToken: await rawToken() });
    try {
      assert.ok((await ok.systems()).length > 0);
    } finally {
      await ok.dispose();
    }
    const r = recorder();
    const bad = await createClient({ profile: { name: 's', url: t.url, apiVersion: 'v2' }, staticToken: 'static-and-wrong' }, r.events);
    try {
      await assert.rejects(bad.systems(), (e: unknown) => e instanceof UnauthorizedError && !e.message.includes('static-and-wrong'));
      assert.deepEqual(r.statuses, [401]);
    } finally {
      await bad.dispose();
    }
  });
});
