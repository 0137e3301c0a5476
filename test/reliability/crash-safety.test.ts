/**
 * Crash safety: the gateway is killed (SIGKILL) at random moments while it writes a user's files,
 * and started again on the same port and state dir. After each restart every target holds exactly
 * its old content or its new content, never a mix or a truncation, and the gateway answers again.
 * The writes: direct uploads, staged uploads (the ingress job), mv and cp jobs over an existing
 * file, and editor saves (the FileSystemProvider's writeFile). CRASH_ROUNDS (default 20) kills in
 * all, the kinds in turn; SEED makes the moments repeatable. The suite reports its count.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createClient, FirecrestUri, type FirecrestClient } from '../../src/core/index';
import { RemoteFileSystem } from '../../src/fs/remoteFileSystem';
import { gatewayOnly } from '../support/target';
import { freePort, OwnGateway } from './ownGateway';
import { prng } from './workload';

const MiB = 1024 * 1024;
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A time limit that does not keep the test process alive once the race is decided. */
const limit = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE)/;

type Kind = 'direct' | 'staged' | 'mv' | 'cp' | 'save';
const KINDS: Kind[] = ['direct', 'staged', 'mv', 'cp', 'save'];
const SIZES: Record<Kind, number> = { direct: 3 * MiB, staged: 8 * MiB, mv: 2 * MiB, cp: 16 * MiB, save: 1 * MiB };

void describe('crash safety: SIGKILL while files are written', { skip: gatewayOnly() }, () => {
  let gw: OwnGateway;
  let c: FirecrestClient;
  let rfs: RemoteFileSystem;
  let S = '';
  let dir = '';
  let v2 = '';
  let tokenUrl = '';
  let creds = { id: '', secret: '' };
  const seed = Number(process.env.SEED ?? Date.now() % 100000);
  const rnd = prng(seed);
  const outcomes: Record<Kind, { old: number; new: number }> = { direct: { old: 0, new: 0 }, staged: { old: 0, new: 0 }, mv: { old: 0, new: 0 }, cp: { old: 0, new: 0 }, save: { old: 0, new: 0 } };

  before(async () => {
    gw = new OwnGateway(await freePort(), { maxPartSize: 2 * MiB });
    const info = await gw.start();
    S = info.systems[0];
    v2 = info.v2;
    tokenUrl = info.tokenUrl;
    creds = { id: info.clientId, secret: info.clientSecret };
    c = await createClient({ profile: { name: 'crash', url: v2, apiVersion: 'v2', tokenUrl, clientId: creds.id }, clientSecret: creds.secret, requestTimeoutMs: 30_000 });
    rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => 5 * MiB, ttlMs: 0 });
    const user = (await c.userInfo(S)).user.name;
    dir = `/home/${user}/f7t-crash-${randomBytes(4).toString('hex')}`;
    await c.mkdir(S, dir, { parents: true });
  });
  after(async () => {
    if (!gw.running) await gw.start().catch(() => undefined);
    await cancelLeftoverJobs().catch(() => undefined);
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
    await gw.dispose();
  });

  async function bearer(): Promise<string> {
    const res = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.id, client_secret: creds.secret }).toString() });
    return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
  }

  async function call(method: string, path: string, json?: unknown): Promise<{ status: number; body: { [k: string]: unknown } }> {
    const res = await fetch(`${v2}${path}`, { method, headers: { authorization: await bearer(), ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as { [k: string]: unknown }) : {} };
  }

  /** The jobs a kind of write starts: none for direct uploads and saves under the direct limit. */
  const JOB_NAMES: Record<Kind, string[]> = { direct: [], save: [], staged: ['IngressFileTransfer'], mv: ['MoveFiles'], cp: ['CopyFiles'] };

  /**
   * The jobs of these names of this suite's user that have not ended (an ingress job waits for an
   * upload that will never complete). Asked by name and for the last hour only: the whole listing
   * of a CI machine's day of jobs costs more than a second a time.
   */
  async function openJobs(names: string[]): Promise<{ jobId: string; name: string }[]> {
    const open: { jobId: string; name: string }[] = [];
    for (const name of names) {
      const r = await call('GET', `/compute/${S}/jobs?time_window=1h&name=${encodeURIComponent(name)}`);
      const jobs = (r.body.jobs ?? []) as { jobId: string; name: string; status: { state: string | string[] } }[];
      // Another suite's uploads wait for their own parts, not for this suite's rounds.
      const mine = (j: { jobId: string; name: string }) => j.name !== 'IngressFileTransfer' || ownIngress.has(j.jobId);
      open.push(...jobs.filter((j) => j.name === name && mine(j) && !FINAL.test([j.status.state].flat().join(','))).map((j) => ({ jobId: j.jobId, name: j.name })));
    }
    return open;
  }

  /**
   * The ingress jobs this suite's staged uploads started (from the uploads' state). Other suites
   * run at the same time as the same user (npm test runs core beside this one): their jobs are
   * neither cancelled nor waited for here.
   */
  const ownIngress = new Set<string>();
  const track = { onState: (st: { transferJob: { jobId: string } }) => { ownIngress.add(st.transferJob.jobId); } };

  /** Cancels this suite's waiting ingress jobs among `open`; true when nothing else is left running. */
  async function cancelIngress(open: { jobId: string; name: string }[]): Promise<boolean> {
    for (const j of open) if (j.name === 'IngressFileTransfer' && ownIngress.has(j.jobId)) await call('DELETE', `/compute/${S}/jobs/${j.jobId}`);
    return open.every((j) => j.name === 'IngressFileTransfer');
  }

  async function cancelLeftoverJobs(): Promise<void> {
    await cancelIngress(await openJobs(JOB_NAMES.staged));
  }

  /** Lets the jobs of a kind of write end: moves and copies run to their end, waiting ingress jobs are cancelled. */
  async function settle(kind: Kind): Promise<void> {
    for (let i = 0; i < 240; i++) {
      const open = await openJobs(JOB_NAMES[kind]);
      if (open.length === 0) return;
      if (await cancelIngress(open) && (await openJobs(JOB_NAMES[kind])).length === 0) return;
      await sleep(500);
    }
    throw new Error('jobs of the round did not end within 2 minutes');
  }

  /** Starts the write of `next` over `target` (holding `old`); resolves when the client is done or gave up. */
  async function start(kind: Kind, target: string, next: Uint8Array): Promise<() => Promise<unknown>> {
    const name = target.slice(target.lastIndexOf('/') + 1);
    if (kind === 'mv' || kind === 'cp') {
      const source = `${target}.src`;
      await c.transfers.uploadBytes(S, next, source);
      return () => call('POST', `/filesystem/${S}/transfer/${kind}`, { sourcePath: source, targetPath: target });
    }
    if (kind === 'direct') return () => c.uploadSmall(S, dir, name, next);
    if (kind === 'staged') return () => c.transfers.uploadBytes(S, next, target, track);
    return () => rfs.writeFile(FirecrestUri.from({ system: S, path: target }), next, { create: true, overwrite: true });
  }

  /** How long each kind of write takes here, so that the kills land while it runs. */
  const windows: Partial<Record<Kind, number>> = {};
  async function window(kind: Kind): Promise<number> {
    if (windows[kind] !== undefined) return windows[kind];
    const target = `${dir}/calibrate-${kind}`;
    await c.transfers.uploadBytes(S, randomBytes(SIZES[kind]), target);
    const go = await start(kind, target, randomBytes(SIZES[kind]));
    const t0 = performance.now();
    await go();
    if (kind === 'mv' || kind === 'cp') await settle(kind);
    windows[kind] = Math.max(20, performance.now() - t0);
    return windows[kind];
  }

  void it(`leaves every target old or new across ${ROUNDS} kills, and the gateway answers after each`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const kind = KINDS[round % KINDS.length];
      const span = await window(kind);
      const target = `${dir}/${kind}-${round}.bin`;
      const old = randomBytes(Math.max(1, Math.floor(SIZES[kind] / 3)));
      await c.transfers.uploadBytes(S, old, target);
      const next = randomBytes(SIZES[kind]);
      const go = await start(kind, target, next);
      const delay = rnd() * span * 1.2;
      const op = go().then(() => 'done', () => 'failed');
      await sleep(delay);
      await gw.kill();
      await gw.start();
      // The gateway answers, and the client that saw it die works on.
      assert.equal((await call('GET', '/status/systems')).status, 200, `round ${round}: the gateway answers after the restart`);
      await Promise.race([op, limit(30_000)]);
      await settle(kind);
      const got = sha(readFileSync(target));
      const verdict = got === sha(old) ? 'old' : got === sha(next) ? 'new' : 'MIXED';
      assert.notEqual(verdict, 'MIXED', `round ${round} (${kind}, killed after ${delay.toFixed(0)} of ~${span.toFixed(0)} ms): ${target} is neither the old nor the new content (${readFileSync(target).length} bytes)`);
      outcomes[kind][verdict as 'old' | 'new']++;
      assert.deepEqual((await c.list(S, dir)).map((e) => e.name).filter((n) => n.startsWith(`${kind}-${round}.bin`) && n !== `${kind}-${round}.bin` && !n.endsWith('.src')), [], 'no stray file next to the target');
    }
    const summary = KINDS.map((k) => `${k} ${outcomes[k].old} old/${outcomes[k].new} new`).join(', ');
    console.log(`crash-safety: ${ROUNDS} kills (seed ${seed}), every target old or new: ${summary}`);
  });
});
