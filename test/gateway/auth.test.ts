/** Token endpoint and bearer checks (§1.1, §1.3 v2) over real HTTP. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, api, gw, isErrorBody, requestToken, sleep, t, token } from './support';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
const loadJose = (): Promise<Jose> => import('jose');

void describe('token endpoint', () => {
  void it('issues a bearer token for client credentials in the body', async () => {
    const r = await requestToken();
    assert.equal(r.status, 200, r.text);
    assert.equal(typeof r.body.access_token, 'string');
    assert.equal(typeof r.body.expires_in, 'number');
    assert.ok(r.body.expires_in > 30);
    assert.match(String(r.body.token_type), /^bearer$/i);
  });

  void it('accepts HTTP Basic client authentication', async () => {
    const r = await requestToken(t.clientId, t.clientSecret, true);
    assert.equal(r.status, 200, r.text);
    const ok = await api('/status/systems', { auth: `Bearer ${r.body.access_token as string}` });
    assert.equal(ok.status, 200);
  });

  void it('refuses a wrong secret with invalid_client', async () => {
    const r = await requestToken(t.clientId, `${t.clientSecret}x`);
    assert.ok(r.status === 401 || r.status === 400, r.text);
    assert.equal(r.body.error, 'invalid_client');
  });

  void it('refuses an unknown grant type and a missing one', async () => {
    const body = new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret });
    const r = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'unsupported_grant_type');
    const none = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${t.clientId}` });
    assert.equal(none.status, 400);
    assert.equal(((await none.json()) as { error: string }).error, 'invalid_request');
  });
});

void describe('bearer checks', () => {
  void it('answers 401 Not authenticated with WWW-Authenticate when the header is missing or not Bearer', async () => {
    for (const auth of [null, 'Basic Zm9vOmJhcg==']) {
      const r = await api('/status/systems', { auth });
      assert.ok(r.status === 401 || r.status === 403, `status ${r.status}`);
      assert.ok(isErrorBody(r.body), r.text);
      assert.equal(r.body.message, 'Not authenticated');
      assert.match(r.headers.get('www-authenticate') ?? '', /bearer/i);
      assert.ok(r.headers.get('f7t-appversion'));
      assert.ok(r.headers.get('f7t-timestamp'));
    }
  });

  void it('refuses a malformed token', async () => {
    const r = await api('/status/systems', { auth: 'Bearer not.a.jwt' });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'Access token is invalid.');
  });

  void it('refuses tokens signed by another key (unknown kid, or our kid with a forged signature)', async () => {
    const jose = await loadJose();
    const { privateKey } = await jose.generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const claims = { preferred_username: 'alice' };
    const foreign = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'someone-else' }).setIssuedAt(now).setExpirationTime(now + 300).sign(privateKey);
    const r1 = await api('/status/systems', { auth: `Bearer ${foreign}` });
    assert.equal(r1.status, 401);
    assert.equal(r1.body.message, "Token's public key not found.");
    const ours = jose.decodeProtectedHeader(await token());
    const forged = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: ours.kid }).setIssuedAt(now).setExpirationTime(now + 300).sign(privateKey);
    const r2 = await api('/status/systems', { auth: `Bearer ${forged}` });
    assert.equal(r2.status, 401);
    assert.equal(r2.body.message, 'Access token is invalid.');
  });

  void describe('with the gateway signing key', { skip: gatewayOnly() }, () => {
    after(async () => {
      await admin('PUT', '/settings', { tokenLifetimeSeconds: 300 });
    });

    void it('refuses a token that expires too soon, then as expired', async () => {
      const set = await admin('PUT', '/settings', { tokenLifetimeSeconds: 2 });
      assert.equal(set.status, 200, set.text);
      const r = await requestToken();
      assert.equal(r.body.expires_in, 2);
      const auth = `Bearer ${r.body.access_token as string}`;
      const soon = await api('/status/systems', { auth });
      assert.equal(soon.status, 401);
      assert.equal(soon.body.message, 'Access token expires too soon (less than 30s remaining).');
      await sleep(2500);
      const expired = await api('/status/systems', { auth });
      assert.equal(expired.status, 401);
      assert.equal(expired.body.message, 'Access token expired');
    });

    void it('answers 400 when preferred_username is missing', async () => {
      const jose = await loadJose();
      const stored = JSON.parse(readFileSync(join(gw().stateDir ?? '', 'jwt-keys.json'), 'utf8')) as { kid: string; privateJwk: Record<string, unknown> };
      const key = await jose.importJWK(stored.privateJwk, 'RS256');
      const now = Math.floor(Date.now() / 1000);
      const iss = String(jose.decodeJwt(await token()).iss);
      const jwt = await new jose.SignJWT({ azp: 'x' }).setProtectedHeader({ alg: 'RS256', kid: stored.kid }).setIssuer(iss).setIssuedAt(now).setExpirationTime(now + 300).sign(key);
      const r = await api('/status/systems', { auth: `Bearer ${jwt}` });
      assert.equal(r.status, 400);
      assert.equal(r.body.message, "Authentication token 'preferred_username' claim is missing");
    });
  });

  void it('puts the user in errors raised after authentication', async () => {
    const r = await api('/status/no-such-system/nodes');
    assert.equal(r.status, 404);
    assert.equal(r.body.message, 'System not found');
    assert.equal(typeof r.body.user, 'string');
    assert.equal(r.headers.get('f7t-authusername'), r.body.user);
  });
});
