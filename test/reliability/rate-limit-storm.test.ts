/**
 * Rate-limit storms: the extension's request rate drops, across all features, because one client
 * holds ONE back-off gate per origin that every 429 `Retry-After` closes for every caller.
 *
 * Four features run at once on one client, as in a window with the Jobs view and a remote folder
 * open: the Jobs view's refresh scheduler, the file watcher's change poller, a listing loop and a
 * loop of small uploads. The gateway's `/_admin/stats` counts what reaches it in two windows of
 * the same length in the same run: no faults, then every request answered 429. Then only the
 * status routes are limited, and a listing loop that is never refused must slow down as well
 * (with per-call-site back-off it would not). Counts and ratios only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FirecrestUri, RateLimitedError, type FirecrestClient } from '../../src/core/index';
import { RefreshScheduler } from '../../src/common/refreshScheduler';
import { ChangePoller } from '../../src/fs/changePoller';
import type { RemoteChange } from '../../src/fs/remoteFileSystem';
import { RemoteFileSystem } from '../../src/fs/remoteFileSystem';
import { client, enc, gateway, scratchDir, t } from '../core/support';
import { gatewayOnly } from '../support/target';
import { stats } from './admin';

const S = t.system;
const WINDOW_MS = 8000;
const RETRY_AFTER_S = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Window { requests: number; byRoute: Record<string, number>; answered429: number; rateLimitedErrors: number; otherErrors: string[]; deletedEvents: number }

void describe('rate-limit storm', { skip: gatewayOnly() }, () => {
  let c: FirecrestClient;
  let dir: string;
  let r429 = 0;

  before(async () => {
    c = await client({ maxRateLimitRetries: 5, maxRetryWaitMs: 10_000 }, {}, { onRequest: (e) => { if (e.status === 429) r429++; } });
    dir = await scratchDir(c, 'storm');
    await c.mkdir(S, `${dir}/up`);
  });
  after(async () => {
    await gateway.clearFaults();
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  /** Runs `features` for one window and counts what reached the gateway meanwhile. */
  async function window(features: (signal: AbortSignal, w: Window) => (() => void)[]): Promise<Window> {
    const w: Window = { requests: 0, byRoute: {}, answered429: 0, rateLimitedErrors: 0, otherErrors: [], deletedEvents: 0 };
    const ctl = new AbortController();
    const s0 = await stats();
    const r0 = r429;
    const stops = features(ctl.signal, w);
    await sleep(WINDOW_MS);
    const s1 = await stats();
    w.answered429 = r429 - r0;
    ctl.abort();
    for (const stop of stops) stop();
    w.requests = s1.requests - s0.requests;
    for (const [k, v] of Object.entries(s1.byRoute)) if (v - (s0.byRoute[k] ?? 0) > 0) w.byRoute[k] = v - (s0.byRoute[k] ?? 0);
    await sleep(500);
    return w;
  }

  function noteError(w: Window, signal: AbortSignal, e: unknown): void {
    if (signal.aborted) return;
    if (e instanceof RateLimitedError) w.rateLimitedErrors++;
    else w.otherErrors.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }

  function loop(signal: AbortSignal, w: Window, body: (i: number) => Promise<unknown>): () => void {
    void (async () => {
      for (let i = 0; !signal.aborted; i++) {
        try { await body(i); } catch (e) { noteError(w, signal, e); }
      }
    })();
    return () => undefined;
  }

  const allFeatures = (signal: AbortSignal, w: Window): (() => void)[] => {
    // Jobs view: visible, refreshing as often as it does with a job running (faster, for counts).
    const jobs = new RefreshScheduler({
      debounceMs: 0,
      run: async (_reason, sig) => { await c.jobs(S, { signal: AbortSignal.any([sig, signal]) }); return { nextDelayMs: 250 }; },
      onError: (e) => noteError(w, signal, e),
    });
    jobs.setVisible(true);
    // File watcher: the watched folder, polled while it changes (the uploads below change it).
    const rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => 1024 * 1024 });
    const folder = FirecrestUri.from({ system: S, path: `${dir}/up` });
    const poller = new ChangePoller({
      list: (d, maxAge) => rfs.list(d, maxAge),
      isDirectory: async () => true,
      emit: (changes: RemoteChange[]) => { w.deletedEvents += changes.filter((ch) => ch.kind === 'deleted' && ch.uri.path === folder.path).length; },
      reuseMs: 0,
      baseIntervalMs: 250,
      maxIntervalMs: 1000,
      onError: (_d, e) => noteError(w, signal, e),
    });
    const watch = poller.watch(folder, false);
    return [
      () => { jobs.dispose(); },
      () => { watch.dispose(); poller.dispose(); },
      loop(signal, w, () => c.list(S, dir, { signal })),
      loop(signal, w, (i) => c.uploadSmall(S, `${dir}/up`, `f${i % 5}.txt`, enc(`content ${i}\n`), { signal })),
    ];
  };

  void it('every feature slows down under a storm of 429s; Retry-After holds back the whole client', async () => {
    const calm = await window(allFeatures);
    await gateway.faults({ rateLimit: { rate: 1, retryAfterSeconds: RETRY_AFTER_S } });
    const storm = await window(allFeatures);
    await gateway.clearFaults();
    console.log(`[storm] calm: ${JSON.stringify(calm)}`);
    console.log(`[storm] storm: ${JSON.stringify(storm)}`);
    assert.deepEqual(calm.otherErrors, []);
    assert.deepEqual(storm.otherErrors, [], 'a storm of 429s is reported as RateLimitedError or not at all');
    assert.ok(calm.requests >= 40, `the calm window made ${calm.requests} requests: too few to compare`);
    assert.ok(storm.answered429 > 0);
    assert.ok(storm.requests * 4 <= calm.requests, `requests: ${storm.requests} in the storm vs ${calm.requests} calm`);
    for (const route of ['GET /v2/compute/{system}/jobs', 'GET /v2/filesystem/{system}/ops/ls', 'POST /v2/filesystem/{system}/ops/upload']) {
      assert.ok((calm.byRoute[route] ?? 0) > 0, `${route} ran in the calm window`);
      // A feature slow by itself (the job listing on a loaded Slurm) makes too few calls to compare.
      if (calm.byRoute[route] < 10) continue;
      assert.ok((storm.byRoute[route] ?? 0) * 2 <= calm.byRoute[route], `${route}: ${storm.byRoute[route] ?? 0} in the storm vs ${calm.byRoute[route]} calm`);
    }
    assert.equal(storm.deletedEvents, 0, 'a refused poll does not report the watched folder as deleted');
  });

  void it('a 429 on one route holds back the other routes of the same client (one gate, not per call site)', async () => {
    const limited = (signal: AbortSignal, w: Window) => [
      loop(signal, w, () => c.userInfo(S, { signal })),
      loop(signal, w, () => c.list(S, dir, { signal })),
    ];
    const calm = await window(limited);
    await gateway.faults({ rateLimit: { rate: 1, match: '^GET /v2/status/', retryAfterSeconds: RETRY_AFTER_S } });
    const storm = await window(limited);
    await gateway.clearFaults();
    console.log(`[storm] one route limited: calm ${JSON.stringify(calm.byRoute)}, storm ${JSON.stringify(storm.byRoute)}`);
    const ls = 'GET /v2/filesystem/{system}/ops/ls';
    assert.ok((calm.byRoute[ls] ?? 0) >= 20, `calm listings: ${calm.byRoute[ls] ?? 0}`);
    assert.ok((storm.byRoute[ls] ?? 0) * 4 <= calm.byRoute[ls], `listings never refused still slow down: ${storm.byRoute[ls] ?? 0} vs ${calm.byRoute[ls]}`);
    assert.deepEqual(storm.otherErrors, []);
  });
});
