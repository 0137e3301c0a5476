/**
 * Median latency of ls, stat, checksum and submit through the gateway, next to the same HTTP calls
 * made by plain `curl` in the same run (curl's own `time_total`, so process start-up does not count
 * but a fresh TCP connection does). Reference: the real FirecREST v2 answers these in about 12, 13,
 * 14 and 66 ms on loopback.
 *
 * Run: npm run bench:gateway   (starts a local gateway; or set FIRECREST_URL & co. for a deployment)
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { target } from '../test/support/target';
import { emitTable } from './report.cjs';

const run = promisify(execFile);
const t = target();
const N = Number(process.env.BENCH_N ?? 30);
const WARMUP = 3;
const REFERENCE: Record<string, number> = { ls: 12, stat: 13, checksum: 14, submit: 66 };

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  json?: unknown;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function urlOf(c: Call): string {
  return `${t.url}${c.path}${c.query ? `?${new URLSearchParams(c.query).toString()}` : ''}`;
}

async function getToken(): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
  const r = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  if (!r.ok) throw new Error(`token request failed: ${r.status}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

async function viaFetch(c: Call, token: string): Promise<number> {
  const started = performance.now();
  const r = await fetch(urlOf(c), {
    method: c.method,
    headers: { authorization: `Bearer ${token}`, ...(c.json ? { 'content-type': 'application/json' } : {}) },
    body: c.json ? JSON.stringify(c.json) : undefined,
  });
  await r.arrayBuffer();
  const ms = performance.now() - started;
  if (r.status >= 300) throw new Error(`${c.name}: HTTP ${r.status}`);
  return ms;
}

async function viaCurl(c: Call, headerFile: string): Promise<number> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{time_total}', '-X', c.method, '-H', `@${headerFile}`];
  if (c.json) args.push('-H', 'content-type: application/json', '--data-binary', JSON.stringify(c.json));
  const { stdout } = await run('curl', [...args, urlOf(c)]);
  const [code, secs] = stdout.trim().split(' ');
  if (Number(code) >= 300) throw new Error(`${c.name} (curl): HTTP ${code}`);
  return Number(secs) * 1000;
}

async function measure(fn: () => Promise<number>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < N; i++) samples.push(await fn());
  return median(samples);
}

async function main(): Promise<void> {
  const token = await getToken();
  const auth = { authorization: `Bearer ${token}` };
  const sys = (await (await fetch(`${t.url}/status/systems`, { headers: auth })).json()) as { systems: { name: string; fileSystems: { path: string; defaultWorkDir: boolean }[] }[] };
  const system = sys.systems.find((s) => s.name === t.system);
  if (!system) throw new Error(`system ${t.system} not listed`);
  const info = (await (await fetch(`${t.url}/status/${t.system}/userinfo`, { headers: auth })).json()) as { user: { name: string } };
  const fsRoot = (system.fileSystems.find((f) => f.defaultWorkDir) ?? system.fileSystems[0]).path.replace(/\/$/, '');
  // A folder of its own: a home shared with running suites changes under a listing.
  const wd = `${fsRoot}/${info.user.name}/f7t-bench-gateway-${randomBytes(4).toString('hex')}`;
  const mk = await fetch(`${t.url}/filesystem/${t.system}/ops/mkdir`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ path: wd, parent: true }) });
  if (mk.status >= 300) throw new Error(`mkdir of the bench folder failed: HTTP ${mk.status}`);
  const fileName = `f7t-bench-${randomBytes(4).toString('hex')}.txt`;
  const file = `${wd}/${fileName}`;

  const form = new FormData();
  form.append('file', new Blob([randomBytes(1024).toString('hex')]), fileName);
  const up = await fetch(`${t.url}/filesystem/${t.system}/ops/upload?path=${encodeURIComponent(wd)}`, { method: 'POST', headers: auth, body: form });
  if (up.status >= 300) throw new Error(`upload of the bench file failed: HTTP ${up.status}`);

  const tmp = mkdtempSync(join(tmpdir(), 'f7t-bench-'));
  const headerFile = join(tmp, 'auth-header');
  writeFileSync(headerFile, `Authorization: Bearer ${token}\n`, { mode: 0o600 });
  const fsBase = `/filesystem/${t.system}/ops`;
  const calls: Call[] = [
    { name: 'ls', method: 'GET', path: `${fsBase}/ls`, query: { path: wd } },
    { name: 'stat', method: 'GET', path: `${fsBase}/stat`, query: { path: file } },
    { name: 'checksum', method: 'GET', path: `${fsBase}/checksum`, query: { path: file } },
    { name: 'submit', method: 'POST', path: `/compute/${t.system}/jobs`, json: { job: { name: 'f7t-bench', workingDirectory: wd, script: '#!/bin/bash\ntrue\n' } } },
  ];
  const rows: string[][] = [];
  try {
    for (const c of calls) {
      const fetched = await measure(() => viaFetch(c, token));
      const curled = await measure(() => viaCurl(c, headerFile));
      rows.push([c.name, fetched.toFixed(1), curled.toFixed(1), String(REFERENCE[c.name] ?? '')]);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await fetch(`${t.url}${fsBase}/rm?path=${encodeURIComponent(wd)}`, { method: 'DELETE', headers: auth });
  }
  const head = ['call', 'gateway, keep-alive fetch (ms)', 'gateway, curl (ms)', 'real FirecREST v2 (ms)'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  console.log(`median of ${N} calls each (${WARMUP} warm-up), ${t.url}${t.gateway ? ` (local gateway, scheduler ${t.gateway.scheduler ?? '?'})` : ''}`);
  console.log(line(head));
  console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  emitTable('gateway', head, rows);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
