/**
 * Randomised file workload under seeded faults (RELIABILITY.md has the rule and the figures).
 *
 * OPS random operations through RemoteFileSystem (what the FileSystemProvider runs) with a real
 * client, while the gateway answers ~10% of requests with 429, 5xx, a dropped connection before or
 * after acting, or latency. After every operation that failed, faults go off and the remote folder
 * is compared with the model: it must equal the state before the operation or the state after it
 * (a dropped answer may hide a success; a multi-request save may fail after its move ran) and
 * never a third state (a truncated or mixed file). The model adopts whichever it matches. At the
 * end the whole tree must equal the model, SHA-256 for SHA-256.
 *
 * SEED=<n> OPS=<n> replay a run; `npm run test:soak` runs 1,000 operations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FirecrestError, FirecrestUri, type FirecrestClient } from '../../src/core/index';
import { FsError } from '../../src/fs/fsError';
import { RemoteFileSystem } from '../../src/fs/remoteFileSystem';
import { client, gateway, scratchDir, t } from '../core/support';
import { gatewayOnly } from '../support/target';
import { apply, describeOp, diffTrees, nextOp, prng, snapshot, type Op, type Tree } from './workload';

const SEED = Number(process.env.SEED ?? 20261122);
const OPS = Number(process.env.OPS ?? 40);
const SOAK = process.env.SOAK === '1';
const CHECK_EACH = process.env.CHECK_EACH === '1';

/** ~10% of requests: each switch a few percent. Latency stays rare and short in the short run. */
const faultsFor = (seed: number) => ({
  seed,
  dropBefore: { rate: 0.02 },
  dropAfter: { rate: 0.02 },
  error: { rate: 0.025, statuses: [500, 502, 503] },
  rateLimit: { rate: 0.02, retryAfterSeconds: 1 },
  latency: SOAK ? { rate: 0.01, ms: 2000, minMs: 200 } : { rate: 0.005, ms: 300 },
});

/** Semantic refusals: the model said the operation was valid, so one of these is a bug. */
const SEMANTIC = new Set(['FileExists', 'FileNotFound', 'NotEmpty', 'FileIsADirectory', 'FileNotADirectory']);

/**
 * A v2 move/copy is a scheduler job: when the answer to its submission was dropped, the job may
 * still be queued and change the tree later. Reconciliation waits for the user's unfinished jobs
 * that work on this run's folder, so the state it judges is the final one. Jobs of suites sharing
 * the cluster are not ours to wait for. The v2 listing carries no submit time (v1's does), so a
 * job is known as ours by its script, which names the folder; each script is fetched once.
 */
async function settleJobs(c: FirecrestClient, root: string, sinceEpochSeconds: number, scripts: Map<string, boolean>): Promise<void> {
  const ours = async (id: string): Promise<boolean> => {
    let known = scripts.get(id);
    if (known === undefined) {
      const script = (await c.jobMetadata(t.system, id).catch(() => undefined))?.script;
      // A job too new to answer is asked again on the next round.
      if (script === undefined) return true;
      known = script.includes(root);
      scripts.set(id, known);
    }
    return known;
  };
  for (let i = 0; i < 240; i++) {
    const open = (await c.jobs(t.system)).filter((j) => !j.isFinal && (j.submitTime === undefined || j.submitTime >= sinceEpochSeconds));
    let waiting = false;
    for (const j of open) if (await ours(j.id)) waiting = true;
    if (!waiting) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail('transfer jobs submitted by the failed operation did not finish within 120 s');
}

let unhandled = 0;
process.on('unhandledRejection', (e) => { unhandled++; console.error('[workload] unhandled rejection:', e); });

void describe(`random file workload under faults (SEED=${SEED} OPS=${OPS})`, { skip: gatewayOnly() }, () => {
  let c: FirecrestClient;
  let rfs: RemoteFileSystem;
  let root: string;
  const statuses = { r429: 0, r5xx: 0, dropped: 0, requests: 0 };
  const retries = { rateLimit: 0, transient: 0 };

  before(async () => {
    c = await client({ requestTimeoutMs: 30_000, maxRetryWaitMs: 5000 }, {}, {
      onRequest: (e) => {
        statuses.requests++;
        if (e.status === 429) statuses.r429++;
        else if (e.status !== undefined && e.status >= 500) statuses.r5xx++;
        else if (e.status === undefined) statuses.dropped++;
      },
      onRetryWait: (e) => { if (e.reason === 'rate-limit') retries.rateLimit++; else retries.transient++; },
    });
    root = await scratchDir(c, 'workload');
    const limit = (await c.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 5 * 1024 * 1024;
    rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => limit });
  });
  after(async () => {
    await gateway.clearFaults().catch(() => undefined);
    await c.remove(t.system, root).catch(() => undefined);
    await c.dispose();
  });

  void it('the remote tree equals the model; every failure is typed; nothing is lost', async () => {
    const rnd = prng(SEED);
    const uri = (rel: string) => FirecrestUri.from({ system: t.system, path: `${root}/${rel}` });
    const run = (o: Op): Promise<void> => {
      switch (o.op) {
        case 'write': return rfs.writeFile(uri(o.path), o.data, { create: true, overwrite: o.overwrite });
        case 'mkdir': return rfs.createDirectory(uri(o.path));
        case 'delete': return rfs.delete(uri(o.path), { recursive: true });
        case 'rename': return rfs.rename(uri(o.from), uri(o.to), { overwrite: o.overwrite });
        case 'copy': return rfs.copy(uri(o.from), uri(o.to), { overwrite: o.overwrite });
      }
    };
    const limit = (await c.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 5 * 1024 * 1024;
    const stats0 = await gateway.stats();
    let model: Tree = new Map();
    const failures: string[] = [];
    const untyped: string[] = [];
    const semantic: string[] = [];
    const outcome = { before: 0, after: 0 };
    let temps = 0;
    let ok = 0;
    /** Job id → whether its script works on this run's folder. */
    const scripts = new Map<string, boolean>();
    const started = Date.now();

    // CHECK_EACH=1 (debugging a seed): compare the tree after every successful operation too.
    const checkNow = async (i: number, o: Op) => {
      await gateway.clearFaults();
      const d = diffTrees(model, (await snapshot(c, t.system, root)).tree);
      assert.deepEqual(d, [], `SEED=${SEED} op #${i} ${describeOp(o)} succeeded but the tree differs`);
      await gateway.faults(faultsFor(SEED + i + 1));
    };
    await gateway.faults(faultsFor(SEED));
    for (let i = 0; i < OPS; i++) {
      const o = nextOp(model, rnd, limit);
      const wanted = apply(model, o);
      // One second of slack: the scheduler's clock is read in whole seconds.
      const opStart = Math.floor(Date.now() / 1000) - 1;
      try {
        await run(o);
        model = wanted;
        ok++;
        if (CHECK_EACH) await checkNow(i, o);
        continue;
      } catch (e) {
        failures.push(`#${i} ${describeOp(o)}: ${(e as Error).name}: ${(e as Error).message}`);
        if (!(e instanceof FirecrestError || e instanceof FsError)) untyped.push(`#${i} ${describeOp(o)}: ${String(e)}`);
        if (e instanceof FsError && SEMANTIC.has(e.code)) semantic.push(`#${i} ${describeOp(o)}: ${e.code} ${e.message}`);
      }
      // Reconcile with faults off, then resume them on a seed derived from the operation's index
      // (a fresh PUT restarts the gateway's PRNG; deriving keeps the run replayable).
      await gateway.clearFaults();
      // A job may show in the queue a moment after its submission: the state is judged only once
      // two snapshots taken 1.5 s apart (jobs settled before each) agree.
      const settled = async () => {
        await settleJobs(c, root, opStart, scripts);
        return snapshot(c, t.system, root);
      };
      let snap = await settled();
      for (let k = 0; k < 5; k++) {
        await new Promise((r) => setTimeout(r, 1500));
        const again = await settled();
        const same = diffTrees(snap.tree, again.tree).length === 0;
        snap = again;
        if (same) break;
      }
      for (const tmp of snap.temps) { temps++; await c.remove(t.system, `${root}/${tmp}`); }
      if (diffTrees(model, snap.tree).length === 0) outcome.before++;
      else if (diffTrees(wanted, snap.tree).length === 0) { outcome.after++; model = wanted; }
      else assert.fail(`SEED=${SEED} op #${i} ${describeOp(o)} left a third state:\n  vs before: ${diffTrees(model, snap.tree).join('; ')}\n  vs after: ${diffTrees(wanted, snap.tree).join('; ')}`);
      rfs.invalidateTree(uri('').dirname);
      await gateway.faults(faultsFor(SEED + i + 1));
    }
    await gateway.clearFaults();

    const final = await snapshot(c, t.system, root);
    const lost = diffTrees(model, final.tree);
    const stats1 = await gateway.stats();
    const figures = {
      seed: SEED, ops: OPS, succeeded: ok, failuresReported: failures.length,
      failedLeftBefore: outcome.before, failedButDone: outcome.after, saveTempsCleaned: temps + final.temps.length,
      requests: stats1.requests - stats0.requests, answered429: statuses.r429, answered5xx: statuses.r5xx, noAnswer: statuses.dropped,
      retries429: retries.rateLimit, retriesTransient: retries.transient,
      untypedFailures: untyped.length, semanticFailures: semantic.length, unhandledRejections: unhandled,
      treeDifferences: lost.length, seconds: Math.round((Date.now() - started) / 1000),
    };
    console.log(`[workload] ${JSON.stringify(figures)}`);
    if (process.env.WORKLOAD_VERBOSE) for (const f of failures) console.log(`[workload] ${f}`);
    assert.deepEqual(untyped, [], `SEED=${SEED}: untyped failures`);
    assert.deepEqual(semantic, [], `SEED=${SEED}: refusals contradicting the model`);
    assert.deepEqual(lost, [], `SEED=${SEED}: the remote tree differs from the model`);
    assert.equal(unhandled, 0, `SEED=${SEED}: unhandled rejections`);
    assert.ok(statuses.r429 + statuses.r5xx + statuses.dropped > 0, 'no fault was injected: the run proves nothing');
  });
});
