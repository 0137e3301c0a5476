/**
 * Staged transfer benchmark: a 1 GiB upload and download through `client.transfers` against the
 * local gateway, compared in the same run with `curl` moving the same parts with the same
 * parallelism (`curl --parallel`, one presigned PUT per part; one GET for the download), and the
 * client's peak RSS growth. The S3 phase is timed apart from the whole operation (which adds the
 * transfer job and the server's checksum). Big files are deleted at the end.
 * Run: `npm run bench:transfer` (starts the local gateway). BENCH_MIB / BENCH_PART_MIB / BENCH_PAR / BENCH_ROUNDS.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Progress } from '../src/core/index';
import { target } from '../test/support/target';

const t = target();
const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? 1024) * MiB;
const PART = Number(process.env.BENCH_PART_MIB ?? 64) * MiB;
const PAR = Number(process.env.BENCH_PAR ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function admin(path: string, body: unknown): Promise<void> {
  const g = t.gateway;
  if (!g?.admin) throw new Error('bench:transfer needs the local gateway (admin API)');
  const res = await fetch(`${g.admin}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken ?? ''}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status}`);
}

async function writeRandom(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  for (let at = 0; at < size; at += 8 * MiB) {
    if (!out.write(randomBytes(Math.min(8 * MiB, size - at)))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${cmd} exited ${code}`))));
  });
}

/** RSS before any transfer (the client exists, the source file is written): growth is measured from it. */
let baseline = 0;

/** Peak RSS growth over `baseline` while `fn` runs (sampled every 20 ms). */
async function withRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakGrowth: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 20);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakGrowth: peak - baseline };
  } finally {
    clearInterval(timer);
  }
}

/** Phase timestamps from progress events: when a phase was first and last seen. */
function phases(): { onProgress: (p: Progress) => void; first: Map<string, number> } {
  const first = new Map<string, number>();
  return { first, onProgress: (p) => { if (!first.has(p.phase)) first.set(p.phase, performance.now()); } };
}

const mbps = (bytes: number, ms: number): string => (bytes / MiB / (ms / 1000)).toFixed(0);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const S = t.system;
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret, requestTimeoutMs: 300_000 });
  const local = mkdtempSync(join(tmpdir(), 'f7t-bench-transfer-'));
  const home = `/home/${(await c.userInfo(S)).user.name}/f7t-bench-transfer-${process.pid}`;
  await c.mkdir(S, home, { parents: true });
  await admin('/settings', { maxPartSize: PART, commandTimeoutSeconds: 300 });
  const src = join(local, 'src.bin');
  try {
    await writeRandom(src, SIZE);
    (globalThis as { gc?: () => void }).gc?.();
    baseline = process.memoryUsage.rss();
    const rows: string[][] = [];
    // Tokens live 5 minutes on the gateway and a round takes longer: a fresh one per raw call.
    const token = async (): Promise<string> => ((await (await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret }).toString() })).json()) as { access_token: string }).access_token;
    const post = async <T>(route: string, json: unknown): Promise<T> => (await (await fetch(`${t.url}/filesystem/${S}/transfer/${route}`, { method: 'POST', headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' }, body: JSON.stringify(json) })).json()) as T;

    // curl cannot send a byte range of a file: the parts are cut once, beforehand (not timed).
    const partFiles: string[] = [];
    for (let i = 0; i * PART < SIZE; i++) {
      const f = join(local, `part-${i + 1}`);
      await new Promise<void>((r, j) => createReadStream(src, { start: i * PART, end: Math.min(SIZE, (i + 1) * PART) - 1 }).pipe(createWriteStream(f)).on('finish', () => r()).on('error', j));
      partFiles.push(f);
    }

    const clientUpload = async (): Promise<{ s3: number; total: number; rss: number; sha: string }> => {
      const up = phases();
      const t0 = performance.now();
      const { value, peakGrowth } = await withRss(() => c.transfers.upload(S, src, `${home}/up.bin`, { parallelism: PAR, onProgress: up.onProgress }));
      if (!value.verified) throw new Error(`upload not verified: ${value.note ?? ''}`);
      // From the first part byte to the completion call: the ticket request is not S3 traffic.
      return { s3: (up.first.get('completing') ?? 0) - (up.first.get('uploading') ?? t0), total: performance.now() - t0, rss: peakGrowth, sha: value.sha256 };
    };
    const curlUpload = async (): Promise<number> => {
      const ticket = await post<{ transferJob: { jobId: string }; transferDirectives: { partsUploadUrls: string[] } }>('upload', { path: `${home}/curl.bin`, transferDirectives: { transferMethod: 's3', fileSize: SIZE } });
      const urls = ticket.transferDirectives.partsUploadUrls;
      const args = ['-s', '-S', '-f', '--no-progress-meter', '-Z', '--parallel-max', String(PAR), '-H', 'Content-Type: application/octet-stream'];
      for (let i = 0; i < urls.length; i++) args.push('-T', partFiles[i], '-o', '/dev/null', urls[i]);
      const ms = await run('curl', args);
      await fetch(`${t.url}/compute/${S}/jobs/${ticket.transferJob.jobId}`, { method: 'DELETE', headers: { authorization: `Bearer ${await token()}` } });
      return ms;
    };
    const clientDownload = async (sha: string): Promise<{ s3: number; total: number; rss: number }> => {
      const down = phases();
      const t1 = performance.now();
      const { value, peakGrowth } = await withRss(() => c.transfers.download(S, `${home}/up.bin`, join(local, 'down.bin'), { onProgress: down.onProgress }));
      if (!value.verified || value.sha256 !== sha) throw new Error('download differs from the upload');
      rmSync(join(local, 'down.bin'));
      return { s3: (down.first.get('verifying') ?? 0) - (down.first.get('downloading') ?? 0), total: performance.now() - t1, rss: peakGrowth };
    };
    const curlDownload = async (): Promise<number> => {
      const dl = await post<{ transferJob: { jobId: string }; transferDirectives: { downloadUrl: string } }>('download', { sourcePath: `${home}/up.bin`, transferDirectives: { transferMethod: 's3' } });
      await c.waitForTransferJob({ jobId: dl.transferJob.jobId, system: S });
      const ms = await run('curl', ['-s', '-S', '-f', '-o', join(local, 'curl-down.bin'), dl.transferDirectives.downloadUrl]);
      rmSync(join(local, 'curl-down.bin'));
      return ms;
    };

    // The machine is shared: rounds alternate client and curl, and the median of each is kept
    // (RSS: the largest growth seen).
    const ups: Awaited<ReturnType<typeof clientUpload>>[] = [];
    const downs: Awaited<ReturnType<typeof clientDownload>>[] = [];
    const curlUps: number[] = [];
    const curlDowns: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const u = await clientUpload();
      ups.push(u);
      curlUps.push(await curlUpload());
      downs.push(await clientDownload(u.sha));
      curlDowns.push(await curlDownload());
      console.error(`round ${round + 1}/${ROUNDS}: upload client ${mbps(SIZE, u.s3)} curl ${mbps(SIZE, curlUps[round])} MiB/s; download client ${mbps(SIZE, downs[round].s3)} curl ${mbps(SIZE, curlDowns[round])} MiB/s`);
    }
    const [upS3, upTotal, upRss] = [median(ups.map((u) => u.s3)), median(ups.map((u) => u.total)), Math.max(...ups.map((u) => u.rss))];
    const [downS3, downTotal, downRss] = [median(downs.map((d) => d.s3)), median(downs.map((d) => d.total)), Math.max(...downs.map((d) => d.rss))];
    const [curlUp, curlDown] = [median(curlUps), median(curlDowns)];
    rows.push(['upload', `${mbps(SIZE, upS3)}`, `${mbps(SIZE, curlUp)}`, (curlUp / upS3).toFixed(2), (upTotal / 1000).toFixed(1), (upRss / MiB).toFixed(0)]);
    rows.push(['download', `${mbps(SIZE, downS3)}`, `${mbps(SIZE, curlDown)}`, (curlDown / downS3).toFixed(2), (downTotal / 1000).toFixed(1), (downRss / MiB).toFixed(0)]);
    console.log(`\nstaged transfer of ${SIZE / MiB} MiB, parts of ${PART / MiB} MiB, ${PAR} parallel, median of ${ROUNDS} rounds (scheduler ${t.gateway?.scheduler ?? '?'})`);
    const head = ['direction', 'client S3 MiB/s', 'curl MiB/s', 'client/curl', 'client total s', 'client peak RSS growth MiB'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (r: string[]): string => r.map((v, i) => v.padStart(widths[i])).join('  ');
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log('\n"client total" adds the transfer job and the server-side SHA-256 to the S3 phase. Targets: client/curl >= 0.9, RSS growth < 150 MiB.');
  } finally {
    rmSync(local, { recursive: true, force: true });
    await c.remove(S, home).catch(() => undefined);
    await admin('/settings', { maxPartSize: 2147483648, commandTimeoutSeconds: 5 }).catch(() => undefined);
    await c.dispose();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
