/**
 * Staged transfer benchmark: a 1 GiB upload and download through `client.transfers` against the
 * local gateway, compared in the same run with `curl` moving the same parts with the same
 * parallelism (`curl --parallel`, one presigned PUT per part; one GET for the download), and the
 * client's peak RSS growth. The S3 phase is timed apart from the whole operation (which adds the
 * transfer job and the server's checksum). Big files are deleted at the end.
 *
 * CPU seconds per GiB sit next to the throughput: on a shared machine they move far less with load
 * than MiB/s do. The client's is `process.cpuUsage()` over its S3 phase (the client runs in this
 * process; every thread counts, the file reads of the thread pool too). curl's is its own rusage:
 * curl runs under `bash -c 'curl …; times'`, whose second line is the user and system time of the
 * children bash waited for. The local gateway's is utime + stime of /proc/<pid>/stat (its pid is
 * found by its state dir) over the same window.
 * Run: `npm run bench:transfer` (starts the local gateway). BENCH_MIB / BENCH_PART_MIB / BENCH_PAR /
 * BENCH_ROUNDS; BENCH_DOWNLOAD=0 measures the upload only. BENCH_PROFILE=<dir> writes a CPU profile of
 * the client's main thread over each client download and upload (`download-1.cpuprofile`, …; open
 * it in Chrome's DevTools or VS Code): what the thread that drives the sockets spends its time on.
 * BENCH_RANGES=<n> (default 4; 0 skips it) adds, in each round, curl fetching the download in n
 * byte ranges at once (`--parallel`, `-r`), against curl's one stream of the same round: whether
 * ranged parallel GETs would move the file faster on this machine (issue 45), before any client
 * change is made for them. Its row's ratio is curl's one stream over the ranges (> 1: ranges win);
 * the in-order SHA-256 that the ranges would cost afterwards is in its CPU.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Progress } from '../src/core/index';
import { target } from '../test/support/target';
import { emitTable } from './report.cjs';
import { median, selfCpu, writeRandom } from './util';

const t = target();
const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? 1024) * MiB;
const PART = Number(process.env.BENCH_PART_MIB ?? 64) * MiB;
const PAR = Number(process.env.BENCH_PAR ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DOWNLOAD = process.env.BENCH_DOWNLOAD !== '0';
const RANGES = Number(process.env.BENCH_RANGES ?? 4);

async function admin(path: string, body: unknown): Promise<void> {
  const g = t.gateway;
  if (!g?.admin) throw new Error('bench:transfer needs the local gateway (admin API)');
  const res = await fetch(`${g.admin}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken ?? ''}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status}`);
}

/**
 * Runs `tool args…` under bash; resolves its wall time and CPU (user + system s, from bash's
 * `times` once the tool exited: what its waited-for children used).
 */
function timed(tool: 'curl' | 'sha256sum', args: string[]): Promise<{ ms: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const p = spawn('bash', ['-c', `${tool} "$@" >/dev/null || exit $?; times`, 'bash', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    p.on('error', reject);
    p.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`${tool} exited ${code}`));
      // "0m0.002s 0m0.001s" (the shell) then the same for its children.
      const secs = [...(out.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      if (secs.length !== 2) return reject(new Error(`cannot read ${tool}'s CPU time from ${JSON.stringify(out)}`));
      resolve({ ms, cpu: secs[0] + secs[1] });
    });
  });
}
const curl = (args: string[]) => timed('curl', args);

const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The local gateway's process (its command line names its state dir), or undefined. */
function gatewayPid(): number | undefined {
  const dir = t.gateway?.stateDir;
  if (!dir) return undefined;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (cmd.some((a) => a.endsWith('gateway.js')) && cmd.includes(dir)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** utime + stime (s) of a `/proc/.../stat` file. The command name (2nd field) is in parentheses and may hold spaces: fields are counted after it. */
function cpuOfStat(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}

/** CPU seconds (user + system, all threads) used so far by `pid`; NaN when unknown. */
const cpuOf = (pid: number | undefined): number => (pid === undefined ? NaN : cpuOfStat(`/proc/${pid}/stat`));

/** CPU seconds of `pid`'s main thread alone (its own task entry): what the event loop spends. */
const mainCpuOf = (pid: number | undefined): number => (pid === undefined ? NaN : cpuOfStat(`/proc/${pid}/task/${pid}/stat`));

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

const PROFILE_DIR = process.env.BENCH_PROFILE;

/** Runs `fn` under the V8 CPU profiler when BENCH_PROFILE is set, writing `<name>.cpuprofile`. */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

interface Mark { at: number; cpu: number; gw: number; gwMain: number }

/** When each phase was first seen, with the client's and the gateway's CPU time then. */
function phases(gw: number | undefined): { onProgress: (p: Progress) => void; first: Map<string, Mark> } {
  const first = new Map<string, Mark>();
  return { first, onProgress: (p) => { if (!first.has(p.phase)) first.set(p.phase, { at: performance.now(), cpu: selfCpu(), gw: cpuOf(gw), gwMain: mainCpuOf(gw) }); } };
}

/** Wall ms and CPU s of the client and the gateway between two phases. */
function between(first: Map<string, Mark>, from: string, to: string): { ms: number; cpu: number; gw: number; gwMain: number } {
  const a = first.get(from);
  const b = first.get(to);
  if (!a || !b) throw new Error(`phase ${from} or ${to} was not reported`);
  return { ms: b.at - a.at, cpu: b.cpu - a.cpu, gw: b.gw - a.gw, gwMain: b.gwMain - a.gwMain };
}

const mbps = (bytes: number, ms: number): string => (bytes / MiB / (ms / 1000)).toFixed(0);

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

    const gw = gatewayPid();
    /** `whole`: the client's CPU from the call to its answer (hashing and verification included). */
    type Run = { s3: number; total: number; rss: number; cpu: number; gw: number; gwMain: number; whole: number };
    const clientUpload = async (): Promise<Run & { sha: string }> => {
      const up = phases(gw);
      const t0 = performance.now();
      const cpu0 = selfCpu();
      const { value, peakGrowth } = await withRss(() => profiled(`upload-${ups.length + 1}`, () => c.transfers.upload(S, src, `${home}/up.bin`, { parallelism: PAR, onProgress: up.onProgress })));
      if (!value.verified) throw new Error(`upload not verified: ${value.note ?? ''}`);
      // From the first part byte to the completion call: the ticket request is not S3 traffic.
      const s3 = between(up.first, 'uploading', 'completing');
      return { s3: s3.ms, cpu: s3.cpu, gw: s3.gw, gwMain: s3.gwMain, total: performance.now() - t0, rss: peakGrowth, sha: value.sha256, whole: selfCpu() - cpu0 };
    };
    /** `hash`: sha256sum's CPU over the same file, what verifying it costs a shell user. */
    type CurlRun = { ms: number; cpu: number; gw: number; gwMain: number; hash: number };
    const curlUpload = async (): Promise<CurlRun> => {
      const ticket = await post<{ transferJob: { jobId: string }; transferDirectives: { partsUploadUrls: string[] } }>('upload', { path: `${home}/curl.bin`, transferDirectives: { transferMethod: 's3', fileSize: SIZE } });
      const urls = ticket.transferDirectives.partsUploadUrls;
      const args = ['-s', '-S', '-f', '--no-progress-meter', '-Z', '--parallel-max', String(PAR), '-H', 'Content-Type: application/octet-stream'];
      for (let i = 0; i < urls.length; i++) args.push('-T', partFiles[i], '-o', '/dev/null', urls[i]);
      const [gw0, main0] = [cpuOf(gw), mainCpuOf(gw)];
      const r = await curl(args);
      const [gwCpu, gwMain] = [cpuOf(gw) - gw0, mainCpuOf(gw) - main0];
      await fetch(`${t.url}/compute/${S}/jobs/${ticket.transferJob.jobId}`, { method: 'DELETE', headers: { authorization: `Bearer ${await token()}` } });
      return { ...r, gw: gwCpu, gwMain, hash: (await timed('sha256sum', [src])).cpu };
    };
    const clientDownload = async (sha: string): Promise<Run> => {
      const down = phases(gw);
      const t1 = performance.now();
      const cpu0 = selfCpu();
      const { value, peakGrowth } = await withRss(() => profiled(`download-${downs.length + 1}`, () => c.transfers.download(S, `${home}/up.bin`, join(local, 'down.bin'), { onProgress: down.onProgress })));
      if (!value.verified || value.sha256 !== sha) throw new Error('download differs from the upload');
      rmSync(join(local, 'down.bin'));
      const s3 = between(down.first, 'downloading', 'verifying');
      return { s3: s3.ms, cpu: s3.cpu, gw: s3.gw, gwMain: s3.gwMain, total: performance.now() - t1, rss: peakGrowth, whole: selfCpu() - cpu0 };
    };
    const curlDownload = async (): Promise<CurlRun> => {
      const dl = await post<{ transferJob: { jobId: string }; transferDirectives: { downloadUrl: string } }>('download', { sourcePath: `${home}/up.bin`, transferDirectives: { transferMethod: 's3' } });
      await c.waitForTransferJob({ jobId: dl.transferJob.jobId, system: S });
      const [gw0, main0] = [cpuOf(gw), mainCpuOf(gw)];
      const r = await curl(['-s', '-S', '-f', '-o', join(local, 'curl-down.bin'), dl.transferDirectives.downloadUrl]);
      const [gwCpu, gwMain] = [cpuOf(gw) - gw0, mainCpuOf(gw) - main0];
      const hash = (await timed('sha256sum', [join(local, 'curl-down.bin')])).cpu;
      rmSync(join(local, 'curl-down.bin'));
      return { ...r, gw: gwCpu, gwMain, hash };
    };

    /** curl fetching the staged file in RANGES byte ranges at once, each into its own file. */
    const curlRanged = async (): Promise<CurlRun> => {
      const dl = await post<{ transferJob: { jobId: string }; transferDirectives: { downloadUrl: string } }>('download', { sourcePath: `${home}/up.bin`, transferDirectives: { transferMethod: 's3' } });
      await c.waitForTransferJob({ jobId: dl.transferJob.jobId, system: S });
      const step = Math.ceil(SIZE / RANGES);
      const files: string[] = [];
      const args = ['-s', '-S', '-f', '--no-progress-meter', '-Z', '--parallel-max', String(RANGES)];
      for (let i = 0; i * step < SIZE; i++) {
        files.push(join(local, `range-${i}`));
        args.push('-r', `${i * step}-${Math.min(SIZE, (i + 1) * step) - 1}`, '-o', files[i], dl.transferDirectives.downloadUrl);
      }
      const [gw0, main0] = [cpuOf(gw), mainCpuOf(gw)];
      const r = await curl(args);
      const [gwCpu, gwMain] = [cpuOf(gw) - gw0, mainCpuOf(gw) - main0];
      // The ranges' SHA-256 has to read them in order, after they arrived.
      const hash = (await timed('sha256sum', files)).cpu;
      for (const f of files) rmSync(f);
      return { ...r, gw: gwCpu, gwMain, hash };
    };

    // The machine is shared: rounds alternate client and curl, and the median of each is kept
    // (RSS: the largest growth seen).
    const ups: Run[] = [];
    const downs: Run[] = [];
    const curlUps: CurlRun[] = [];
    const curlDowns: CurlRun[] = [];
    const curlRanges: CurlRun[] = [];
    const GiB = SIZE / (1024 * MiB);
    const perGiB = (cpu: number): string => (Number.isNaN(cpu) ? '-' : (cpu / GiB).toFixed(2));
    for (let round = 0; round < ROUNDS; round++) {
      // Who goes first alternates: the first upload of a round follows a round's writes of 2 GiB
      // (the downloads), whose page-cache write-back the gateway's disk writes then compete with.
      const curlFirst = round % 2 === 1;
      const cu0 = curlFirst ? await curlUpload() : undefined;
      const u = await clientUpload();
      ups.push(u);
      const cu = cu0 ?? (await curlUpload());
      curlUps.push(cu);
      let line = `round ${round + 1}/${ROUNDS} (load ${loadavg()[0].toFixed(1)}${curlFirst ? ', curl first' : ''}): upload client ${mbps(SIZE, u.s3)} curl ${mbps(SIZE, cu.ms)} MiB/s (${(cu.ms / u.s3).toFixed(2)}x), CPU s/GiB client ${perGiB(u.cpu)} (whole ${perGiB(u.whole)}) curl ${perGiB(cu.cpu)} (+ sha256sum ${perGiB(cu.hash)}) gateway ${perGiB(u.gw)} / ${perGiB(cu.gw)}`;
      if (DOWNLOAD) {
        const d = await clientDownload(u.sha);
        downs.push(d);
        const cd = await curlDownload();
        curlDowns.push(cd);
        line += `; download client ${mbps(SIZE, d.s3)} curl ${mbps(SIZE, cd.ms)} MiB/s (${(cd.ms / d.s3).toFixed(2)}x), CPU s/GiB client ${perGiB(d.cpu)} (whole ${perGiB(d.whole)}) curl ${perGiB(cd.cpu)} (+ sha256sum ${perGiB(cd.hash)})`;
        if (RANGES > 0) {
          const cr = await curlRanged();
          curlRanges.push(cr);
          line += `; curl in ${RANGES} ranges ${mbps(SIZE, cr.ms)} MiB/s (${(cd.ms / cr.ms).toFixed(2)}x one stream), CPU s/GiB ${perGiB(cr.cpu)} (+ sha256sum ${perGiB(cr.hash)})`;
        }
      }
      console.error(line);
    }
    const row = (direction: string, runs: Run[], curls: CurlRun[]): string[] => {
      const [s3, total, rss] = [median(runs.map((r) => r.s3)), median(runs.map((r) => r.total)), Math.max(...runs.map((r) => r.rss))];
      const curlMs = median(curls.map((r) => r.ms));
      const ratios = runs.map((r, i) => (curls[i].ms / r.s3).toFixed(2)).join(' ');
      return [direction, mbps(SIZE, s3), mbps(SIZE, curlMs), `${(curlMs / s3).toFixed(2)} (${ratios})`, perGiB(median(runs.map((r) => r.cpu))), perGiB(median(curls.map((r) => r.cpu))),
        `${perGiB(median(runs.map((r) => r.gw)))} / ${perGiB(median(curls.map((r) => r.gw)))}`, (total / 1000).toFixed(1), (rss / MiB).toFixed(0),
        perGiB(median(runs.map((r) => r.whole))), perGiB(median(curls.map((r) => r.cpu + r.hash))),
        `${perGiB(median(runs.map((r) => r.gwMain)))} / ${perGiB(median(curls.map((r) => r.gwMain)))}`];
    };
    rows.push(row('upload', ups, curlUps));
    if (DOWNLOAD) rows.push(row('download', downs, curlDowns));
    if (DOWNLOAD && RANGES > 0) {
      // The same columns, read differently: curl's ranges in the curl columns, and the ratio is
      // curl's one stream over the ranges, in the same rounds (no target: it informs a choice).
      const ratios = curlRanges.map((r, i) => (curlDowns[i].ms / r.ms).toFixed(2)).join(' ');
      const rangedMs = median(curlRanges.map((r) => r.ms));
      rows.push([`download, curl in ${RANGES} ranges`, '-', mbps(SIZE, rangedMs), `${(median(curlDowns.map((r) => r.ms)) / rangedMs).toFixed(2)} (${ratios})`, '-', perGiB(median(curlRanges.map((r) => r.cpu))),
        `- / ${perGiB(median(curlRanges.map((r) => r.gw)))}`, '-', '-', '-', perGiB(median(curlRanges.map((r) => r.cpu + r.hash))), `- / ${perGiB(median(curlRanges.map((r) => r.gwMain)))}`]);
    }
    console.log(`\nstaged transfer of ${SIZE / MiB} MiB, parts of ${PART / MiB} MiB, ${PAR} parallel, median of ${ROUNDS} rounds (scheduler ${t.gateway?.scheduler ?? '?'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const head = ['direction', 'client S3 MiB/s', 'curl MiB/s', 'client/curl (rounds)', 'client CPU s/GiB', 'curl CPU s/GiB', 'gateway CPU s/GiB (client / curl)', 'client total s', 'client peak RSS growth MiB', 'client CPU s/GiB, whole call', 'curl + sha256sum CPU s/GiB', 'gateway main thread CPU s/GiB (client / curl)'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (r: string[]): string => r.map((v, i) => v.padStart(widths[i])).join('  ');
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log('\n"client total" adds the transfer job and the server-side SHA-256 to the S3 phase. CPU: over the S3 phase (the client\'s download CPU includes its SHA-256 worker; curl hashes nothing), and for the whole call against curl plus a sha256sum of the same file. Targets: client/curl >= 1.0 up, 1.1 down; RSS growth < 150 MiB; whole-call CPU <= 1.2x curl + sha256sum.' + (DOWNLOAD && RANGES > 0 ? ` The ranges row: curl fetching in ${RANGES} byte ranges at once; its ratio is curl's one stream over the ranges in the same rounds (> 1: ranges win), its last CPU column adds the in-order sha256sum the ranges need.` : ''));
    // Issue 22's targets: upload >= 1.0x curl, download >= 1.1x, peak RSS growth < 150 MiB, and
    // the client's CPU for the whole call (its hashing included) <= 1.2x curl's plus sha256sum's.
    emitTable('transfer', head, rows, (r) => {
      if (r[1] === '-') return { target: 'none: curl\'s one stream over its ranges (> 1: ranges win)' };
      const ratio = Number.parseFloat(String(r[3]));
      const min = r[0] === 'upload' ? 1.0 : 1.1;
      const cpuRatio = Number(r[9]) / Number(r[10]);
      // Issue 22: the gateway's CPU per GiB of staged upload <= 2 s with its main thread free of
      // hashing; judged on the larger of the two windows (whole process, and main thread alone).
      const gateway = Math.max(...String(r[6]).split(' / ').map(Number));
      const gatewayMain = Math.max(...String(r[11]).split(' / ').map(Number));
      const judgesGateway = r[0] === 'upload';
      return {
        target: `client/curl >= ${min}, RSS growth < 150 MiB, CPU <= 1.2x curl + sha256sum`,
        cpuRatio: Number(cpuRatio.toFixed(2)),
        met: ratio >= min && Number(r[8]) < 150 && cpuRatio <= 1.2 && (!judgesGateway || gateway <= 2),
        speedMet: ratio >= min,
        cpuMet: cpuRatio <= 1.2,
        ...(judgesGateway ? { gatewayCpuPerGiB: gateway, gatewayCpuMet: gateway <= 2, gatewayMainCpuPerGiB: gatewayMain } : {}),
      };
    });
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
