/**
 * Client overhead benchmark: median and p95 latency of ls, stat and the job list through the core
 * client versus plain `undici.request` to the same gateway in the same run (interleaved, so both
 * see the same machine load), and the TCP connections opened for 1,000 sequential client calls.
 * The job list is measured twice: empty (what a call costs the client, judged in microseconds),
 * and holding BENCH_LISTED_JOBS jobs (200: one running, the others waiting for it), where the
 * client's check and model of each job count (judged as a ratio).
 * Run: `npm run bench:client` (starts the local gateway).
 */
import { request } from 'undici';
import { createClient, type FirecrestClient } from '../src/core/index';
import { target } from '../test/support/target';
import type { JobSubmission } from '../src/core/model';
import { atMost, emitJson, type Figure } from './report.cjs';

const t = target();
const N = Number(process.env.BENCH_N ?? 300);
/** The job listing runs the scheduler's own commands (~0.3 s each): fewer rounds keep the run short. */
const N_JOBS = Number(process.env.BENCH_N_JOBS ?? 100);
const WARMUP = 30;
const LISTED = Number(process.env.BENCH_LISTED_JOBS ?? 200);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function rawToken(): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
  const res = await request(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  return ((await res.body.json()) as { access_token: string }).access_token;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const s = performance.now();
  await fn();
  return performance.now() - s;
}

/** p50 and p95 of `n` interleaved calls each way, printed as a table row. */
async function compare(name: string, n: number, viaClient: () => Promise<unknown>, viaRaw: () => Promise<unknown>): Promise<{ client: number; raw: number; ratio: number }> {
  for (let i = 0; i < WARMUP; i++) { await viaClient(); await viaRaw(); }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    // alternate which goes first so neither always profits from a warm server cache
    if (i % 2) { a.push(await time(viaClient)); b.push(await time(viaRaw)); } else { b.push(await time(viaRaw)); a.push(await time(viaClient)); }
  }
  const [a50, b50, a95, b95] = [pct(a, 50), pct(b, 50), pct(a, 95), pct(b, 95)];
  console.log(`| ${name} | ${n} | ${a50.toFixed(2)} | ${b50.toFixed(2)} | ${(a50 / b50).toFixed(2)}x | ${a95.toFixed(2)} | ${b95.toFixed(2)} | ${(a95 / b95).toFixed(2)}x |`);
  return { client: a50, raw: b50, ratio: Number((a50 / b50).toFixed(3)) };
}

/** `count` jobs in the queue: one sleeping, the others waiting for it to end (cancelled by the caller). */
async function holdJobs(c: FirecrestClient, system: string, dir: string, count: number): Promise<string[]> {
  const job = (name: string, script: string, dependency?: string): JobSubmission => ({ script: `#!/bin/bash\n${script}\n`, workingDirectory: dir, name, dependency });
  const blocker = await c.submitJob(system, job('bench-blocker', 'sleep 900'));
  const ids = [blocker];
  for (let i = 1; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, k) => c.submitJob(system, job(`bench-held-${i + k}`, 'true', `afterok:${blocker}`)));
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

async function main(): Promise<void> {
  const c: FirecrestClient = await createClient({
    profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId },
    clientSecret: t.clientSecret,
  });
  const S = t.system;
  // A directory of its own: a home that other tests change under our feet makes `ls` fail.
  const home = `/home/${(await c.userInfo(S)).user.name}/f7t-bench-${process.pid}`;
  await c.mkdir(S, home, { parents: true });
  for (let i = 0; i < 20; i++) await c.uploadSmall(S, home, `f${i}.txt`, new TextEncoder().encode(`file ${i}\n`));
  let token = await rawToken();
  let tokenAt = Date.now();
  const enc = encodeURIComponent;
  const raw = async (path: string) => {
    // Renewed every minute, far from expiry (one timed raw sample in a few hundred pays for it).
    if (Date.now() - tokenAt > 60_000) {
      token = await rawToken();
      tokenAt = Date.now();
    }
    const r = await request(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (r.statusCode !== 200) throw new Error(`raw ${path}: ${r.statusCode}`);
    return r.body.json();
  };
  const listJobs: [() => Promise<unknown>, () => Promise<unknown>] = [() => c.jobs(S), () => raw(`/compute/${S}/jobs?allusers=false&account=`)];
  const ops: [string, number, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['ls', N, () => c.list(S, home), () => raw(`/filesystem/${S}/ops/ls?path=${enc(home)}&showHidden=false&recursive=false&numericUid=false&dereference=false`)],
    ['stat', N, () => c.stat(S, home), () => raw(`/filesystem/${S}/ops/stat?path=${enc(home)}&dereference=false`)],
  ];
  console.log(`client vs raw undici.request, interleaved (after ${WARMUP} warm-up calls each), ms`);
  console.log('| op | calls | client p50 | raw p50 | ratio p50 | client p95 | raw p95 | ratio p95 |');
  console.log('|---|---|---|---|---|---|---|---|');
  const figures: Record<string, Figure> = {};
  // Issue 22: the client costs at most 10 % over a raw request of the same route.
  for (const [name, n, viaClient, viaRaw] of ops) figures[`${name} p50 client/raw`] = atMost((await compare(name, n, viaClient, viaRaw)).ratio, 1.1, 'x');
  // The user's jobs as they stand (none on a fresh local gateway): what a call costs the client
  // (deadline, cancellation, request id, token), reported without a target: against an empty
  // answer of 0.13 ms any per-call cost is a large ratio of nothing.
  const before = (await c.jobs(S)).length;
  const empty = await compare(`jobs (${before} listed)`, N_JOBS, ...listJobs);
  figures[`jobs, ${before} listed: client time over raw per call (p50)`] = { value: Math.round((empty.client - empty.raw) * 1000), unit: 'µs' };
  // Then with LISTED jobs more: the client checks and builds each one (issue 45).
  const held = await holdJobs(c, S, home, LISTED);
  try {
    const listed = (await c.jobs(S)).length;
    figures[`jobs p50 client/raw, ${LISTED} jobs held`] = atMost((await compare(`jobs (${listed} listed)`, N_JOBS, ...listJobs)).ratio, 1.1, 'x');
  } finally {
    for (const id of held.reverse()) await c.cancelJob(S, id).catch(() => undefined);
  }
  await c.remove(S, home);
  await c.dispose();

  const g = t.gateway;
  if (g?.admin && g.adminToken) {
    const adminHeaders = { authorization: `Bearer ${g.adminToken}` };
    await request(`${g.admin}/stats/reset`, { method: 'POST', headers: adminHeaders }).then((r) => r.body.dump());
    const fresh = await createClient({ profile: { name: 'bench2', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret });
    for (let i = 0; i < 1000; i++) await fresh.systems();
    await fresh.dispose();
    const stats = (await (await request(`${g.admin}/stats`, { headers: adminHeaders })).body.json()) as { connections: number; requests: number };
    console.log(`\n1,000 sequential client calls (plus the token request): ${stats.connections} TCP connection(s), ${stats.requests} requests seen by the gateway`);
    figures['TCP connections for 1,000 calls'] = atMost(stats.connections, 2);
  } else {
    console.log('\n(connection count needs the local gateway admin API: skipped)');
  }
  emitJson('client', figures);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
