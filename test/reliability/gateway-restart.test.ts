/**
 * The gateway dies and comes back (same port, same state dir) while a client works: a crash and
 * restart of the FirecREST host as clients see it. The suite starts its OWN gateway process for
 * that (with-gateway's stays untouched) and kills it with SIGKILL:
 *  - calls made while it is down fail with a typed, clear error; the same client works again once
 *    it is back, without a new client or token;
 *  - a staged upload cut between its parts, or a staged download cut while the server stages it,
 *    either goes on and verifies, or fails with a typed error and leaves no partial target (the
 *    upload then resumes from the parts already sent).
 *  - the file watcher's poller does not report its folder deleted because polls failed meanwhile.
 * The Jobs view's own recovery is checked in the host suite (test/host/reliability.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, FirecrestError, FirecrestUri, NotFoundError, UnavailableError, type FirecrestClient, type StagedUploadState } from '../../src/core/index';
import { ChangePoller } from '../../src/fs/changePoller';
import { RemoteFileSystem, type RemoteChange } from '../../src/fs/remoteFileSystem';
import { gatewayOnly } from '../support/target';
import { adminCall, stats, type AdminTarget } from './admin';
import { freePort, OwnGateway } from './ownGateway';

const MiB = 1024 * 1024;
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

void describe('gateway restart', { skip: gatewayOnly() }, () => {
  let gw: OwnGateway;
  const admin = (): AdminTarget => ({ admin: gw.info!.admin, adminToken: gw.info!.adminToken });
  let c: FirecrestClient;
  let S: string;
  let dir: string;
  let local: string;
  const unavailable: string[] = [];

  before(async () => {
    gw = new OwnGateway(await freePort(), { maxPartSize: MiB });
    const info = await gw.start();
    S = info.systems[0];
    c = await createClient({
      profile: { name: 'restart', url: info.v2, apiVersion: 'v2', tokenUrl: info.tokenUrl, clientId: info.clientId },
      clientSecret: info.clientSecret,
      requestTimeoutMs: 30_000,
    }, { onRetryWait: (e) => { if (e.reason === 'transient') unavailable.push(e.route); } });
    const user = (await c.userInfo(S)).user.name;
    dir = `/home/${user}/f7t-restart-${randomBytes(4).toString('hex')}`;
    await c.mkdir(S, dir, { parents: true });
    local = mkdtempSync(join(tmpdir(), 'f7t-restart-'));
  });
  after(async () => {
    if (!gw.running) await gw.start().catch(() => undefined);
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
    await gw.dispose();
    rmSync(local, { recursive: true, force: true });
  });

  /** Kills the gateway and starts it again on the same port and state dir. */
  async function restart(): Promise<void> {
    await gw.kill();
    await gw.start();
  }

  void it('calls fail typed while it is down; the same client and token work once it is back', async () => {
    await c.uploadSmall(S, dir, 'before.txt', new TextEncoder().encode('before\n'));
    await gw.kill();
    const down = await c.list(S, dir).then(() => undefined, (e: unknown) => e);
    assert.ok(down instanceof UnavailableError, `typed: ${String(down)}`);
    assert.match(down.message, /Cannot reach http:\/\/127\.0\.0\.1:\d+ \(GET \/filesystem\/\{system\}\/ops\/ls\)/);
    assert.doesNotMatch(down.message, /Bearer|eyJ/, 'no token in the message');
    await gw.start();
    const names = (await c.list(S, dir)).map((f) => f.name);
    assert.ok(names.includes('before.txt'));
    assert.equal((await stats(admin())).tokenRequests, 0, 'the token from before the restart is still good (same state dir)');
  });

  void it('the file watcher does not report its folder deleted while the gateway is down; it does once the folder is gone', async () => {
    const rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => MiB });
    await c.mkdir(S, `${dir}/watched`);
    const folder = FirecrestUri.from({ system: S, path: `${dir}/watched` });
    const deleted: string[] = [];
    let polled = 0;
    let failed = 0;
    const poller = new ChangePoller({
      list: async (d, maxAge) => { const l = await rfs.list(d, maxAge); polled++; return l; },
      isDirectory: async () => true,
      emit: (changes: RemoteChange[]) => { for (const ch of changes) if (ch.kind === 'deleted') deleted.push(ch.uri.path); },
      reuseMs: 0,
      baseIntervalMs: 200,
      maxIntervalMs: 400,
      onError: () => { failed++; },
    });
    const watch = poller.watch(folder, false);
    try {
      const until = async (what: string, ok: () => boolean) => {
        for (let i = 0; i < 600 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
        assert.ok(ok(), what);
      };
      await until('a first poll', () => polled >= 2);
      await gw.kill();
      await until('a failed poll while the gateway is down', () => failed >= 2);
      await gw.start();
      const after = polled;
      await until('a poll once it is back', () => polled > after);
      assert.deepEqual(deleted, [], 'no deletion reported for a failed poll');
      await c.remove(S, folder.path);
      await until('the deletion reported', () => deleted.length > 0);
      assert.deepEqual(deleted, [folder.path]);
    } finally {
      watch.dispose();
      poller.dispose();
    }
  });

  void it('a staged upload cut by a restart resumes and verifies, or fails typed with no partial target', async () => {
    const data = randomBytes(12 * MiB + 777);
    const src = join(local, 'up.bin');
    writeFileSync(src, data);
    const target = `${dir}/up.bin`;
    let state: StagedUploadState | undefined;
    let cut: Promise<void> | undefined;
    // Parts slowed down (the switch is gone after the restart) so that the cut lands between them.
    await adminCall(admin(), 'PUT', '/faults', { latency: { rate: 1, ms: 400, minMs: 300, match: '^PUT /s3/' } });
    const outcome = await c.transfers.uploadFile(S, src, target, {
      parallelism: 2,
      signal: AbortSignal.timeout(180_000),
      onProgress: (p) => { if (process.env.RESTART_VERBOSE) console.log(`[restart] ${p.phase} ${p.partsDone ?? ''} ${p.message ?? ''}`); },
      onState: (s) => { state = s; if (!cut && s.done.length >= 3) cut = restart(); },
    }).catch(asError);
    await cut;
    assert.ok(cut, `the gateway was restarted during the upload (${outcome instanceof Error ? outcome.message : 'it succeeded first'})`);
    if (outcome instanceof Error) {
      assert.ok(outcome instanceof FirecrestError, `typed: ${outcome.name}: ${outcome.message}`);
      console.log(`[restart] upload failed: ${outcome.name}: ${outcome.message}`);
      const left = await c.stat(S, target).then(() => 'exists', (e: unknown) => (e instanceof NotFoundError ? 'absent' : String(e)));
      assert.equal(left, 'absent', 'no partial target');
      assert.ok(state, 'the upload handed out a state to resume from');
      // Resuming works while the server's transfer job lives (Slurm keeps it across the restart);
      // the built-in scheduler loses it (NODE_FAIL), and then only a fresh upload can help.
      const resumed = await c.transfers.uploadFile(S, src, target, { resume: state, signal: AbortSignal.timeout(180_000) }).catch(asError);
      if (resumed instanceof Error) {
        assert.ok(resumed instanceof FirecrestError, `typed: ${resumed.name}: ${resumed.message}`);
        console.log(`[restart] resume failed too (${resumed.message}): a fresh upload`);
      }
      const again = resumed instanceof Error ? await c.transfers.uploadFile(S, src, target, { signal: AbortSignal.timeout(180_000) }) : resumed;
      assert.deepEqual([again.verified, again.sha256], [true, sha(data)], again.note);
    } else {
      console.log(`[restart] upload rode through the restart (transient retries: ${unavailable.length})`);
      assert.deepEqual([outcome.route, outcome.verified, outcome.sha256], ['staged', true, sha(data)], outcome.note);
    }
    const back = join(local, 'check.bin');
    await c.transfers.downloadFile(S, target, back, { signal: AbortSignal.timeout(180_000) });
    assert.equal(sha(readFileSync(back)), sha(data), 'the remote file is the uploaded one');
    rmSync(back);
  });

  void it('a staged download cut by a restart completes and verifies, or fails typed with no partial file', async () => {
    const data = randomBytes(12 * MiB + 555);
    const src = join(local, 'down-src.bin');
    writeFileSync(src, data);
    await c.transfers.uploadFile(S, src, `${dir}/down.bin`, { signal: AbortSignal.timeout(180_000) });
    mkdirSync(join(local, 'out'));
    const dst = join(local, 'out', 'down.bin');
    let cut: Promise<void> | undefined;
    const outcome = await c.transfers.downloadFile(S, `${dir}/down.bin`, dst, {
      signal: AbortSignal.timeout(180_000),
      // Cut while the server stages the file (its transfer job runs): the client is polling.
      onProgress: (p) => { if (!cut && p.phase === 'waiting') cut = restart(); },
    }).catch(asError);
    await cut;
    if (outcome instanceof Error) {
      assert.ok(outcome instanceof FirecrestError, `typed: ${outcome.name}: ${outcome.message}`);
      console.log(`[restart] download failed: ${outcome.name}: ${outcome.message}`);
      assert.ok(!existsSync(dst), 'no partial target');
      const dirOut = join(local, 'out');
      assert.deepEqual(existsSync(dirOut) ? readdirSync(dirOut) : [], [], 'no temporary file left behind');
      const again = await c.transfers.downloadFile(S, `${dir}/down.bin`, dst, { signal: AbortSignal.timeout(180_000) });
      assert.equal(again.verified, true, again.note);
    } else {
      assert.ok(cut, 'the gateway was restarted during the download');
      console.log('[restart] download rode through the restart');
      assert.equal(outcome.verified, true, outcome.note);
    }
    assert.equal(sha(readFileSync(dst)), sha(data));
  });
});
