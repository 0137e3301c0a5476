/**
 * Client overhead benchmark: median and p95 latency of ls, stat and the job list through the core
 * client versus plain `undici.request` to the same gateway in the same run (interleaved, so both
 * see the same machine load), and the TCP connections opened for 1,000 sequential client calls.
 * Run: `npm run bench:client` (starts the local gateway).
 */
import { request } from 'undici';
import { createClient, type FirecrestClient } from '../src/core/index';
import { target } from '../test/support/target';

const t = target();
const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = 30;

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

async function main(): Promise<void> {
  const c: FirecrestClient = await createClient({
    profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId },
    clientSecret: t.clientSecret,
  });
  const S = t.system;
  const home = `/home/${(await c.userInfo(S)).user.name}`;
  const token = await rawToken();
  const auth = { authorization: `Bearer ${token}` };
  const enc = encodeURIComponent;
  const raw = async (path: string) => {
    const r = await request(`${t.url}${path}`, { headers: auth });
    if (r.statusCode !== 200) throw new Error(`raw ${path}: ${r.statusCode}`);
    return r.body.json();
  };
  const ops: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['ls', () => c.list(S, home), () => raw(`/filesystem/${S}/ops/ls?path=${enc(home)}&showHidden=false&recursive=false&numericUid=false&dereference=false`)],
    ['stat', () => c.stat(S, home), () => raw(`/filesystem/${S}/ops/stat?path=${enc(home)}&dereference=false`)],
    ['jobs', () => c.jobs(S), () => raw(`/compute/${S}/jobs?allusers=false&account=`)],
  ];
  console.log(`client vs raw undici.request, ${N} calls each (after ${WARMUP} warm-up), ms`);
  console.log('| op | client p50 | raw p50 | ratio p50 | client p95 | raw p95 | ratio p95 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, viaClient, viaRaw] of ops) {
    for (let i = 0; i < WARMUP; i++) { await viaClient(); await viaRaw(); }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < N; i++) {
      // alternate which goes first so neither always profits from a warm server cache
      if (i % 2) { a.push(await time(viaClient)); b.push(await time(viaRaw)); } else { b.push(await time(viaRaw)); a.push(await time(viaClient)); }
    }
    const [a50, b50, a95, b95] = [pct(a, 50), pct(b, 50), pct(a, 95), pct(b, 95)];
    console.log(`| ${name} | ${a50.toFixed(2)} | ${b50.toFixed(2)} | ${(a50 / b50).toFixed(2)}x | ${a95.toFixed(2)} | ${b95.toFixed(2)} | ${(a95 / b95).toFixed(2)}x |`);
  }
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
  } else {
    console.log('\n(connection count needs the local gateway admin API: skipped)');
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
