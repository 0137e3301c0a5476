/**
 * Secrets stay secret, tokens are checked, users stay apart (SECURITY.md).
 *
 * A whole session at trace level records every log line; failing calls (bad secret, refused token,
 * 5xx) add their messages, `String(error)`, stacks and causes. Neither the client secret nor any
 * token may appear in any of it: the static token's exact value is known, and client-credentials
 * tokens are caught by their JWT shape (`eyJ...`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { FirecrestError, PermissionDeniedError, UnauthorizedError, type FirecrestClient, type Logger } from '../../src/core/index';
import { bobClient, client, enc, gateway, scratchDir, t } from '../core/support';
import { gatewayOnly } from '../support/target';

// jose is ESM-only and this project compiles to CommonJS: loaded with a dynamic import.
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
const loadJose = (): Promise<Jose> => import('jose');

const JWT = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;

function recorder(lines: string[]): Logger {
  const push = (m: unknown, ...a: unknown[]) => {
    lines.push([m, ...a].map((x) => (x instanceof Error ? `${String(x)}\n${x.stack ?? ''}` : typeof x === 'string' ? x : JSON.stringify(x) ?? String(x))).join(' '));
  };
  return { trace: push, debug: push, info: push, warn: push, error: push };
}

/** Everything an error can show a user or a log: message, String(), stack, the cause chain. */
function errorText(e: unknown): string {
  const out: string[] = [];
  for (let x: unknown = e, depth = 0; x !== undefined && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (x instanceof Error) out.push(String(x), x.message, x.stack ?? '', JSON.stringify(x));
    else out.push(JSON.stringify(x) ?? typeof x);
  }
  return out.join('\n');
}

async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(t.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { access_token: string }).access_token;
}

function assertClean(text: string, secrets: string[], what: string): void {
  for (const s of secrets) assert.ok(!text.includes(s), `${what} contains a secret (${s.slice(0, 4)}…)`);
  assert.doesNotMatch(text, JWT, `${what} contains a JWT`);
}

void describe('secrets never reach logs or errors', () => {
  const lines: string[] = [];
  const errors: string[] = [];
  let token: string;
  let c: FirecrestClient;
  let dir: string;
  before(async () => {
    token = await tokenFor(t.clientId, t.clientSecret);
    c = await client({ logger: recorder(lines) });
    dir = await scratchDir(c, 'secrets');
  });
  after(async () => {
    await c.remove(t.system, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('a full session at trace level logs neither the client secret nor a token', async () => {
    await c.systems();
    await c.userInfo(t.system);
    await c.uploadSmall(t.system, dir, 'a.txt', enc('hello'));
    await c.list(t.system, dir);
    await c.downloadSmall(t.system, `${dir}/a.txt`);
    await c.checksum(t.system, `${dir}/a.txt`);
    await c.move(t.system, `${dir}/a.txt`, `${dir}/b.txt`);
    await c.jobs(t.system);
    assert.ok(lines.length > 0, 'the session logged nothing: the check would prove nothing');
    assertClean(lines.join('\n'), [t.clientSecret, token], 'the log');
  });

  void it('failing calls: bad secret, refused token, missing file keep secrets out of errors', async () => {
    const badSecret = `wrong-${randomBytes(12).toString('hex')}`;
    const bad = await client({ clientSecret: badSecret, logger: recorder(lines) });
    await assert.rejects(bad.systems(), (e: unknown) => { errors.push(errorText(e)); return e instanceof UnauthorizedError; });
    await bad.dispose();
    assertClean(errors.join('\n') + lines.join('\n'), [badSecret], 'a bad-secret failure');

    // A static token the server refuses (a foreign key): its value must not be echoed back.
    const forged = await foreignToken(token, 'same-kid');
    const st = await client({ clientSecret: undefined, staticToken: forged, logger: recorder(lines) }, { tokenUrl: undefined, clientId: undefined });
    await assert.rejects(st.systems(), (e: unknown) => { errors.push(errorText(e)); return e instanceof UnauthorizedError; });
    await st.dispose();

    await assert.rejects(c.downloadSmall(t.system, `${dir}/missing`), (e: unknown) => { errors.push(errorText(e)); return e instanceof FirecrestError; });
    assertClean(errors.join('\n') + lines.join('\n'), [t.clientSecret, token, forged], 'failure messages');
  });

  void it('5xx answers keep secrets out of errors', { skip: gatewayOnly() }, async () => {
    await gateway.faults({ error: { next: 10, statuses: [500] } });
    try {
      await assert.rejects(c.systems(), (e: unknown) => { errors.push(errorText(e)); return e instanceof FirecrestError; });
    } finally {
      await gateway.clearFaults();
    }
    assertClean(errors.join('\n') + lines.join('\n'), [t.clientSecret, token], 'a 5xx failure');
  });
});

/** A token shaped like the gateway's, signed by a key the gateway never saw. */
async function foreignToken(real: string, kid: 'same-kid' | 'unknown-kid'): Promise<string> {
  const { decodeProtectedHeader, generateKeyPair, SignJWT } = await loadJose();
  const { privateKey } = await generateKeyPair('RS256');
  const header = decodeProtectedHeader(real);
  const payload = JSON.parse(Buffer.from(real.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: kid === 'same-kid' ? String(header.kid) : `k-${randomBytes(6).toString('hex')}` })
    .sign(privateKey);
}

void describe('the v2 gateway checks tokens and keeps users apart', { skip: gatewayOnly() }, () => {
  void it('refuses a token signed by another key (same kid, unknown kid)', async () => {
    const real = await tokenFor(t.clientId, t.clientSecret);
    for (const [kid, message] of [['same-kid', 'Access token is invalid.'], ['unknown-kid', "Token's public key not found."]] as const) {
      const res = await fetch(`${t.url}/status/systems`, { headers: { authorization: `Bearer ${await foreignToken(real, kid)}` } });
      assert.equal(res.status, 401, kid);
      assert.ok((await res.text()).includes(message), `${kid}: ${message}`);
    }
    assert.equal((await fetch(`${t.url}/status/systems`, { headers: { authorization: `Bearer ${real}` } })).status, 200);
  });

  void it("alice can read neither bob's private file nor cancel bob's job", async () => {
    const alice = await client();
    const bob = await bobClient();
    try {
      const bobHome = await scratchDir(bob, 'private');
      await bob.uploadSmall(t.system, bobHome, 'secret.txt', enc('bob only'));
      await bob.chmod(t.system, `${bobHome}/secret.txt`, '600');
      await assert.rejects(alice.downloadSmall(t.system, `${bobHome}/secret.txt`), (e: unknown) => e instanceof PermissionDeniedError);
      await assert.rejects(alice.uploadSmall(t.system, bobHome, 'planted.txt', enc('x')), (e: unknown) => e instanceof FirecrestError);

      const id = await bob.submitJob(t.system, { name: 'bob-sleep', workingDirectory: bobHome, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n' });
      await assert.rejects(alice.cancelJob(t.system, id), (e: unknown) => e instanceof FirecrestError);
      const still = await bob.job(t.system, id);
      assert.ok(!still.isFinal, `bob's job was ended by alice's cancel: ${still.state}`);
      await bob.cancelJob(t.system, id);
      await bob.remove(t.system, bobHome).catch(() => undefined);
    } finally {
      await alice.dispose();
      await bob.dispose();
    }
  });
});
