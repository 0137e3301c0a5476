import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jwtExpiry } from '../../src/core/auth/jwt';
import { CachedTokenSource, expiryOf, type FetchedToken } from '../../src/core/auth/tokenSource';
import { tokenCommandFetcher } from '../../src/core/auth/tokenCommand';
import { UnauthorizedError } from '../../src/core/errors';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (exp: number) => `${b64({ alg: 'none' })}.${b64({ sub: 'alice', exp })}.sig`;

void describe('token sources', () => {
  void it('reads exp from a JWT and takes the earlier of exp and expires_in', () => {
    assert.equal(jwtExpiry(jwt(1700000000)), 1700000000);
    assert.equal(jwtExpiry('not-a-jwt'), undefined);
    assert.equal(expiryOf(jwt(1000), 300, 0), 300_000);
    assert.equal(expiryOf(jwt(100), 300, 0), 100_000);
    assert.equal(expiryOf('opaque', undefined, 0), undefined);
  });

  void it('reuses a token until 30 s before expiry, and refreshes single-flight', async () => {
    let now = 0;
    let fetches = 0;
    let release!: () => void;
    const src = new CachedTokenSource(async () => {
      fetches++;
      await new Promise<void>((r) => { release = r; });
      return { token: `t${fetches}`, expiresAt: now + 60_000 };
    }, () => now);
    const many = Array.from({ length: 5 }, () => src.token());
    await new Promise((r) => setImmediate(r));
    release();
    assert.deepEqual(await Promise.all(many), ['t1', 't1', 't1', 't1', 't1']);
    assert.equal(fetches, 1);
    now = 28_000;
    assert.equal(await src.token(), 't1');
    now = 30_000;
    const p = src.token();
    await new Promise((r) => setImmediate(r));
    release();
    assert.equal(await p, 't2');
  });

  void it('a refused token is replaced once however many callers saw the refusal', async () => {
    let fetches = 0;
    const src = new CachedTokenSource(async (): Promise<FetchedToken> => ({ token: `t${++fetches}`, expiresAt: Date.now() + 600_000 }));
    assert.equal(await src.token(), 't1');
    const again = await Promise.all([src.token({ rejected: 't1' }), src.token({ rejected: 't1' })]);
    assert.deepEqual(again, ['t2', 't2']);
    assert.equal(await src.token({ rejected: 't1' }), 't2');
    assert.equal(fetches, 2);
  });

  void it('a token without known expiry is fetched for every request', async () => {
    let fetches = 0;
    const src = new CachedTokenSource(async () => ({ token: `t${++fetches}` }));
    await src.token();
    await src.token();
    assert.equal(fetches, 2);
  });

  void it('token command: trimmed stdout, exp from the JWT; failures are UnauthorizedError', async () => {
    const t = jwt(Math.floor(Date.now() / 1000) + 3600);
    const ok = await tokenCommandFetcher(`printf '  ${t}\\n'`, 5000)();
    assert.equal(ok.token, t);
    assert.ok(ok.expiresAt && ok.expiresAt > Date.now());
    await assert.rejects(tokenCommandFetcher('echo oops >&2; exit 3', 5000)(), (e: unknown) => e instanceof UnauthorizedError && /exit 3.*oops/.test(e.message));
    await assert.rejects(tokenCommandFetcher('true', 5000)(), (e: unknown) => e instanceof UnauthorizedError && /no token/.test(e.message));
  });
});
