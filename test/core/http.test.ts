import assert from 'node:assert/strict';
import { afterEach, after, before, describe, it } from 'node:test';
import { CancelledError, MaintenanceError, RateLimitedError, ServerError, TimeoutError, UnavailableError, type ClientEvents, type FirecrestClient, type Logger } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, gateway, scratchDir, t } from './support';

type Wait = Parameters<NonNullable<ClientEvents['onRetryWait']>>[0];

function captureLogger(lines: string[]): Logger {
  const push = (m: unknown, ...a: unknown[]) => { lines.push([m, ...a].map(String).join(' ')); };
  return { trace: push, debug: push, info: push, warn: push, error: push };
}

void describe('HTTP layer against the gateway', { skip: gatewayOnly() }, () => {
  let c: FirecrestClient;
  const waits: Wait[] = [];
  const lines: string[] = [];
  const requests: { method: string; route: string; status?: number }[] = [];
  const S = t.system;
  before(async () => {
    c = await client({ maxRateLimitRetries: 4, maxRetryWaitMs: 5000, logger: captureLogger(lines) }, {}, { onRetryWait: (e) => waits.push(e), onRequest: (e) => requests.push(e) });
  });
  afterEach(async () => {
    await gateway.clearFaults();
    waits.length = 0;
  });
  after(async () => { await c.dispose(); });

  void it('429: waits Retry-After and completes within the bound; the wait is reported', async () => {
    await gateway.faults({ rateLimit: { next: 3, retryAfterSeconds: 1 } });
    const started = Date.now();
    assert.ok((await c.systems()).length > 0);
    const took = Date.now() - started;
    assert.ok(took >= 2900 && took < 8000, `took ${took} ms`);
    assert.deepEqual(waits.map((w) => [w.reason, w.waitMs, w.attempt, w.maxAttempts]), [['rate-limit', 1000, 1, 4], ['rate-limit', 1000, 2, 4], ['rate-limit', 1000, 3, 4]]);
  });

  void it('429 beyond the retry bound: RateLimitedError with retryAfterSeconds', async () => {
    await gateway.faults({ rateLimit: { next: 10, retryAfterSeconds: 1 } });
    await assert.rejects(c.systems(), (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 1 && e.status === 429 && e.route === 'GET /status/systems');
    assert.equal(waits.length, 4);
  });

  void it('a 503 that says maintenance is MaintenanceError with the site\'s words, not an outage', async () => {
    await gateway.faults({ error: { next: 3, statuses: [503], message: 'Planned maintenance of the cluster until 18:00 UTC' } });
    await assert.rejects(c.systems(), (e: unknown) => e instanceof MaintenanceError && e.status === 503 && /^The site is in maintenance: Planned maintenance of the cluster until 18:00 UTC$/.test(e.message));
    await gateway.clearFaults();
    await gateway.faults({ error: { next: 3, statuses: [503], message: 'Service Unavailable' } });
    await assert.rejects(c.systems(), (e: unknown) => e instanceof UnavailableError && !(e instanceof MaintenanceError));
  });

  void it('every request carries an X-Request-ID: logged, echoed, and named by a server error', async () => {
    lines.length = 0;
    await gateway.faults({ error: { next: 1, statuses: [500], match: '^POST ', message: 'Injected server fault' } });
    let failed: unknown;
    await c.mkdir(S, `/tmp/f7t-request-id-${Date.now()}`).catch((e: unknown) => { failed = e; });
    assert.ok(failed instanceof ServerError, String(failed));
    const id = failed.requestId ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(failed.message, new RegExp(`Injected server fault \\(request ${id}\\)$`));
    assert.ok(lines.some((l) => l.includes(`POST /filesystem/{system}/ops/mkdir 500`) && l.includes(`[request ${id}]`)), lines.join('\n'));
    const raw = await fetch(`${t.url}/status/systems`, { headers: { 'x-request-id': 'support-123' } });
    assert.equal(raw.headers.get('x-request-id'), 'support-123');
  });

  void it('429 asking longer than maxRetryWaitMs fails at once with the asked wait', async () => {
    await gateway.faults({ rateLimit: { next: 1, retryAfterSeconds: 30 } });
    const started = Date.now();
    await assert.rejects(c.systems(), (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 30);
    assert.ok(Date.now() - started < 2000);
  });

  void it('rate limiting is shared per origin: other calls wait too', async () => {
    await gateway.faults({ rateLimit: { next: 1, retryAfterSeconds: 2, match: 'GET .*/status/systems$' } });
    const a = c.systems();
    // Start the other call only once the first one has been told to wait.
    while (waits.length === 0) await new Promise((r) => setTimeout(r, 10));
    const told = Date.now();
    const b = c.userInfo(S).then(() => Date.now() - told);
    await a;
    const bTook = await b;
    assert.ok(bTook >= 1900, `the other call went ahead after ${bTook} ms`);
  });

  void it('abort through the signal: CancelledError, and the pool stays usable', async () => {
    await gateway.faults({ latency: { next: 1, ms: 3000, minMs: 3000 } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const started = Date.now();
    await assert.rejects(c.systems({ signal: ac.signal }), CancelledError);
    assert.ok(Date.now() - started < 2000);
    assert.ok((await c.systems()).length > 0);
    await assert.rejects(c.systems({ signal: AbortSignal.abort() }), CancelledError);
  });

  void it('a per-request timeout is TimeoutError naming the route', async () => {
    await gateway.faults({ latency: { next: 1, ms: 3000, minMs: 3000 } });
    await assert.rejects(c.systems({ timeoutMs: 300 }), (e: unknown) => e instanceof TimeoutError && e.route === 'GET /status/systems');
    assert.ok((await c.systems()).length > 0);
  });

  void it('a job listing waits for the listing timeout, other calls only for the request timeout', async () => {
    // The server runs squeue and sacct over the user's recent jobs: on a busy controller that takes
    // longer than any other call, and the listing must not be given up after the usual limit.
    const slow = await client({ requestTimeoutMs: 1500, listingTimeoutMs: 60_000 });
    try {
      await gateway.faults({ latency: { next: 1, ms: 3000, minMs: 3000, match: '^GET .*/compute/[^/]+/jobs$' } });
      const started = Date.now();
      assert.ok(Array.isArray(await slow.jobs(S)));
      assert.ok(Date.now() - started >= 2900, 'the listing was not delayed: the fault did not match it');
      await gateway.faults({ latency: { next: 1, ms: 3000, minMs: 3000, match: 'GET .*/status/systems$' } });
      await assert.rejects(slow.systems(), (e: unknown) => e instanceof TimeoutError && e.route === 'GET /status/systems');
      // A call's own limit still wins.
      await gateway.faults({ latency: { next: 1, ms: 3000, minMs: 3000, match: '^GET .*/compute/[^/]+/jobs$' } });
      await assert.rejects(slow.jobs(S, { timeoutMs: 500 }), (e: unknown) => e instanceof TimeoutError && e.route === 'GET /compute/{system}/jobs');
    } finally {
      await slow.dispose();
    }
  });

  void it('a 5xx on a GET is retried; on a POST it is not', async () => {
    await gateway.faults({ error: { next: 1, statuses: [503] } });
    assert.ok((await c.systems()).length > 0);
    assert.deepEqual(waits.map((w) => w.reason), ['transient']);
    waits.length = 0;
    await gateway.faults({ error: { next: 1, statuses: [503], match: '^POST ' } });
    await assert.rejects(c.mkdir(S, '/tmp/never-made'), (e: unknown) => e instanceof UnavailableError && e.status === 503);
    assert.equal(waits.length, 0);
  });

  void it('a dropped connection: GET retried, POST not', async () => {
    await gateway.faults({ dropBefore: { next: 1, match: '^GET ' } });
    assert.ok((await c.systems()).length > 0);
    await gateway.faults({ dropAfter: { next: 1, match: '^DELETE ' } });
    await assert.rejects(c.cancelJob(S, '999999'), (e: unknown) => e instanceof UnavailableError && e.status === undefined);
  });

  void it('keep-alive: 300 sequential calls use one TCP connection', async () => {
    const fresh = await client();
    try {
      await fresh.systems();
      await gateway.resetStats();
      for (let i = 0; i < 300; i++) await fresh.systems();
      assert.equal((await gateway.stats()).connections, 0, 'no new connection after the first call');
    } finally {
      await fresh.dispose();
    }
  });

  void it('logs one line per request with the route template, never a token or secret', async () => {
    // A folder of the test's own: in /tmp, other suites' files come and go, and an entry removed
    // while the server lists the folder makes it look again (a 404 first, CI60).
    const dir = await scratchDir(c, 'http-log');
    lines.length = 0;
    requests.length = 0;
    await c.list(S, dir);
    assert.deepEqual(requests.map((r) => [r.method, r.route, r.status]), [['GET', '/filesystem/{system}/ops/ls', 200]]);
    assert.ok(lines.some((l) => /^GET \/filesystem\/\{system\}\/ops\/ls 200 \d+ms \[request [0-9a-f-]{36}\]$/.test(l)), lines.join('\n'));
    const all = lines.join('\n');
    assert.ok(!all.includes(t.clientSecret));
    assert.doesNotMatch(all, /eyJ|Bearer \w/);
    await c.remove(S, dir);
  });
});
