/**
 * Jobs benchmark (prints a table; `npm run bench:jobs`, starts the local gateway):
 *  1. a 10,000-job v2 listing parsed (JSON + schema + translation, the client's own code) and
 *     turned into Jobs-tree items (model grouping + provider children + one TreeItem per job);
 *  2. bytes fetched by the Follow Output streamer for a job writing 10 MB in 1 KB lines over about
 *     a minute, against the bytes written;
 *  3. requests per minute made by the Jobs refresh loop with the view hidden (and, for contrast,
 *     visible) while a job runs, counted by the gateway.
 *  4. the same 10,000 jobs as 100 arrays of 100 tasks, listed as the v2 servers do (each task as
 *     `A_T`, a queued or running one also under its own id), folded, grouped under their parents
 *     and turned into tree items (all expanded), against part 1's flat listing in the same run:
 *     CPU time, interleaved runs, target ≤ 1.2x.
 *  5. folding array twins in a 100,000-row listing that a hostile or strange server sends: 50,000
 *     running tasks and 50,000 look-alike rows (same name, user, partition and start) that fit no
 *     task, against 100,000 honest rows (1,000 arrays of 100 tasks, a twin per running task) in the
 *     same run: CPU time, target ≤ 2x (linear; it was 51 s for 40,000 rows when it was quadratic).
 * Parts 2 and 3 need FIRECREST_* (scripts/with-gateway.mjs); BENCH_PARTS=1,4 runs only the offline parts.
 */
import { loadavg } from 'node:os';
import * as vscode from 'vscode';
import { createClient, type FirecrestClient } from '../src/core/index';
import { foldArrayTwins } from '../src/core/jobArrays';
import { parseJobs } from '../src/core/v2/jobEntries';
import { toJob } from '../src/core/v2/translate';
import { JobsW } from '../src/core/v2/wire';
import { RefreshScheduler } from '../src/common/refreshScheduler';
import type { ConnectionService } from '../src/common/services';
import { JobsModel } from '../src/views/jobs/jobsModel';
import { JobsProvider } from '../src/views/jobs/jobsProvider';
import type { JobsNode } from '../src/views/jobs/jobsNodes';
import { OutputStreamer } from '../src/jobs/outputStreamer';
import { target } from '../test/support/target';
import { emitTable } from './report.cjs';

const parts = (process.env.BENCH_PARTS ?? '1,2,3,4,5').split(',');
const rows: [string, string, string, string][] = [];

/**
 * A v2 listing of `n` jobs in the same mix of states; with `arrays`, they are the tasks of that
 * many arrays as Slurm and the v2 servers' sacct + squeue union list them: a started task as
 * `A_T` and, while running, once more under its own id; the tasks not started as one row
 * `A_[1,7,…]` and once more under the array's id.
 */
function wireListing(n: number, arrays = 0): string {
  const states = ['RUNNING', 'PENDING', 'COMPLETED', 'FAILED', 'CANCELLED by 1001', 'TIMEOUT'];
  const now = Math.floor(Date.now() / 1000);
  const jobs = [];
  const perArray = arrays ? Math.ceil(n / arrays) : 0;
  for (let i = 0; i < n; i++) {
    const state = states[i % states.length];
    const arrayId = arrays ? 100000 + Math.floor(i / perArray) * (perArray + 1) : 0;
    const task = i % perArray;
    let rows: string[];
    if (!arrays) rows = [String(100000 + i)];
    else if (state === 'RUNNING') rows = [`${arrayId}_${task}`, String(arrayId + 1 + task)];
    else if (state !== 'PENDING') rows = [`${arrayId}_${task}`];
    else {
      // At the array's first pending index: the row of all of them.
      const pending = Array.from({ length: perArray }, (_, k) => k).filter((k) => states[(i - task + k) % states.length] === 'PENDING');
      rows = pending[0] === task ? [`${arrayId}_[${pending.join(',')}]`, String(arrayId)] : [];
    }
    for (const jobId of rows) jobs.push({
      jobId, name: arrays ? `array-${arrayId}` : `job-${i}`,
      status: { state, stateReason: state === 'PENDING' ? 'Priority' : 'None', exitCode: state === 'FAILED' ? 1 : 0, interruptSignal: 0 },
      tasks: null,
      time: { elapsed: 120, start: now - 120, end: state === 'RUNNING' || state === 'PENDING' ? null : now, suspended: 0, limit: 3600 },
      account: i % 2 ? 'proj' : 'proj2', allocationNodes: 1, cluster: 'cluster', group: 'users', nodes: 'nid001',
      partition: 'debug', killRequestUser: null, user: 'alice', workingDirectory: '/home/alice', priority: 1000,
    });
  }
  return JSON.stringify({ jobs });
}

function fakeConnections(client?: FirecrestClient): ConnectionService {
  const emitter = new vscode.EventEmitter<void>();
  const profile = { name: 'bench', url: client?.profile.url ?? 'http://x', apiVersion: 'v2' as const };
  return {
    onDidChange: emitter.event,
    onDidRecover: new vscode.EventEmitter<string>().event,
    connections: () => [{ profile, state: 'connected' }],
    defaultProfileName: () => 'bench',
    client: async () => client!,
    systems: async () => client!.systems(),
    checkNow: async () => true,
    multiProfile: false,
  };
}

interface Run {
  parseMs: number;
  treeMs: number;
  /** The next listing of the same jobs (parsed again, as a poll does): the model and the tree's
   * in-place refresh of what VS Code was shown (every row compared, the changed ones refreshed). */
  nextMs: number;
  /** CPU time of this process for the whole run: what the code costs, whatever else the machine runs. */
  cpuMs: number;
  items: number;
}

/** What the client's v2 job listing does with the answer's bytes (compute.jobs). */
function clientListing(body: Uint8Array) {
  return foldArrayTwins(parseJobs({ requestId: 'bench', status: 200, headers: {}, body }, 'GET /compute/{system}/jobs'));
}

function treeItemsOnce(body: Uint8Array): Run {
  // Each run starts from a collected heap (jobs-run.mjs passes --expose-gc), so that no run pays
  // for the garbage of the one before it.
  (globalThis as { gc?: () => void }).gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const jobs = clientListing(body);
  const t1 = performance.now();
  const model = new JobsModel(fakeConnections());
  const provider = new JobsProvider(model);
  model.replace([{ profile: 'bench', signedIn: true, canAttach: true, systems: [{ profile: 'bench', system: 'cluster', jobs }] }]);
  let items = 0;
  const expand = (n?: JobsNode) => {
    for (const c of provider.getChildren(n)) {
      provider.getTreeItem(c);
      items++;
      expand(c);
    }
  };
  expand();
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const again = clientListing(body);
  const t3 = performance.now();
  model.replace([{ profile: 'bench', signedIn: true, canAttach: true, systems: [{ profile: 'bench', system: 'cluster', jobs: again }] }]);
  const nextMs = performance.now() - t3;
  return { parseMs: t1 - t0, treeMs: t2 - t1, nextMs, cpuMs: (cpu.user + cpu.system) / 1000, items };
}

function part1(): void {
  const body = Buffer.from(wireListing(10_000));
  for (let i = 0; i < 3; i++) treeItemsOnce(body); // warm-up (JIT)
  const runs = Array.from({ length: 9 }, () => treeItemsOnce(body));
  const wall = (r: Run) => r.parseMs + r.treeMs;
  const byWall = [...runs].sort((a, b) => wall(a) - wall(b));
  const med = byWall[4];
  const best = byWall[0];
  const cpu = [...runs].sort((a, b) => a.cpuMs - b.cpuMs)[4];
  rows.push(['10,000-job listing: parse (JSON, checks, translation), median', `${med.parseMs.toFixed(1)} ms`, `best ${best.parseMs.toFixed(1)} ms`, '']);
  rows.push(['10,000-job listing: group + tree items (all expanded), median', `${med.treeMs.toFixed(1)} ms`, `best ${best.treeMs.toFixed(1)} ms, ${med.items} items`, '']);
  const next = [...runs].sort((a, b) => a.nextMs - b.nextMs)[4];
  rows.push(['the next listing of the same 10,000 jobs: model + in-place tree refresh, median', `${next.nextMs.toFixed(1)} ms`, 'parse not included; every shown row compared', '']);
  rows.push(['10,000-job listing: total wall, median of 9', `${wall(med).toFixed(1)} ms`, `best ${wall(best).toFixed(1)} ms; load avg ${loadavg()[0].toFixed(1)}`, '']);
  // Judged on CPU time: on a shared 2-core machine the wall time mostly measures the neighbours.
  rows.push(['10,000-job listing: total CPU time, median of 9', `${cpu.cpuMs.toFixed(1)} ms`, '< 200 ms', cpu.cpuMs < 200 ? 'PASS' : 'FAIL']);
}

/** Part 4: 100 arrays of 100 tasks against the flat listing, interleaved, judged on CPU time. */
function part4(): void {
  const flat = Buffer.from(wireListing(10_000));
  const arraysText = wireListing(10_000, 100);
  const arrays = Buffer.from(arraysText);
  for (let i = 0; i < 3; i++) { treeItemsOnce(flat); treeItemsOnce(arrays); }
  const f: Run[] = [];
  const a: Run[] = [];
  // 21 pairs: one run is ~40 ms, and a garbage collection falling in one or the other moves it by a quarter.
  for (let i = 0; i < 21; i++) { f.push(treeItemsOnce(flat)); a.push(treeItemsOnce(arrays)); }
  const med = (runs: Run[]) => [...runs].sort((x, y) => x.cpuMs - y.cpuMs)[10];
  const ratio = med(a).cpuMs / med(f).cpuMs;
  const rowsIn = (JSON.parse(arraysText) as { jobs: unknown[] }).jobs.length;
  rows.push(['100 arrays of 100 tasks: listing to tree items, CPU median of 21', `${med(a).cpuMs.toFixed(1)} ms`, `parse+fold ${med(a).parseMs.toFixed(1)} ms, tree ${med(a).treeMs.toFixed(1)} ms; ${rowsIn} rows (tasks + own-id twins), ${med(a).items} items`, '']);
  rows.push(['10,000 flat jobs, same run, CPU median of 21', `${med(f).cpuMs.toFixed(1)} ms`, `parse ${med(f).parseMs.toFixed(1)} ms, tree ${med(f).treeMs.toFixed(1)} ms; ${med(f).items} items`, '']);
  rows.push(['arrays / flat listing (CPU)', `${ratio.toFixed(2)}x`, '<= 1.2x', ratio <= 1.2 ? 'PASS' : 'FAIL']);
}

/** Rows of one array of running tasks, each followed by a look-alike numeric row that fits no task (its id is below the array's). */
function lookAlikes(tasks: number): ReturnType<typeof toJob>[] {
  const start = Math.floor(Date.now() / 1000) - 60;
  const wire = (jobId: string) => JobsW.parse({ jobs: [{
    jobId, name: 'sweep', status: { state: 'RUNNING', stateReason: 'None', exitCode: 0, interruptSignal: 0 }, tasks: null,
    time: { elapsed: 60, start, end: null, suspended: 0, limit: 3600 }, account: 'proj', allocationNodes: 1, cluster: 'cluster', group: 'users',
    nodes: 'nid001', partition: 'debug', killRequestUser: null, user: 'alice', workingDirectory: '/home/alice', priority: 1,
  }] }).jobs![0];
  const out = [];
  for (let i = 0; i < tasks; i++) out.push(toJob(wire(`900000_${i}`)), toJob(wire(String(100000 + i))));
  return out;
}

function part5(): void {
  const honest = () => (JSON.parse(wireListing(96_000, 1000)) as { jobs: unknown[] }).jobs.map((j) => toJob(JobsW.parse({ jobs: [j] }).jobs![0]));
  const hostileRows = lookAlikes(50_000);
  const honestRows = honest();
  const cpu = (rows: ReturnType<typeof toJob>[]): number => {
    const copy = rows.map((j) => ({ ...j }));
    const t0 = process.cpuUsage();
    foldArrayTwins(copy);
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  for (let i = 0; i < 2; i++) { cpu(honestRows); cpu(hostileRows); }
  const h: number[] = [];
  const x: number[] = [];
  for (let i = 0; i < 5; i++) { h.push(cpu(honestRows)); x.push(cpu(hostileRows)); }
  const med = (v: number[]) => [...v].sort((a, b) => a - b)[2];
  const ratio = med(x) / med(h);
  rows.push(['fold 100,000 rows: 50,000 tasks + 50,000 look-alikes, CPU median of 5', `${med(x).toFixed(1)} ms`, `${hostileRows.length} rows`, '']);
  rows.push(['fold honest listing, same run, CPU median of 5', `${med(h).toFixed(1)} ms`, `${honestRows.length} rows (1,000 arrays)`, '']);
  rows.push(['look-alikes / honest fold (CPU)', `${ratio.toFixed(2)}x`, '<= 2x', ratio <= 2 ? 'PASS' : 'FAIL']);
}

async function connect(): Promise<{ client: FirecrestClient; system: string; home: string }> {
  const t = target();
  const client = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret });
  return { client, system: t.system, home: `/home/${(await client.userInfo(t.system)).user.name}` };
}

async function part2(client: FirecrestClient, system: string, home: string): Promise<void> {
  // 60 bursts of 171 lines x 1 KiB, one per second: ~10 MB in about a minute.
  const script = `#!/bin/bash
#SBATCH --job-name=bench-follow
#SBATCH --time=00:10:00
L=$(head -c 1023 /dev/zero | tr '\\0' a)
for s in $(seq 1 60); do for j in $(seq 1 171); do printf '%s\\n' "$L"; done; sleep 1; done
`;
  const jobId = await client.submitJob(system, { script, workingDirectory: home, partition: 'debug' });
  const path = `${home}/slurm-${jobId}.out`;
  let received = 0;
  const ctl = new AbortController();
  const streamer = new OutputStreamer({ client, system, jobId, path, signal: ctl.signal, chunkBytes: 512 * 1024, write: (s) => (received += Buffer.byteLength(s)) });
  const t0 = performance.now();
  const result = await streamer.run();
  const secs = (performance.now() - t0) / 1000;
  const size = (await client.stat(system, path)).size;
  const ratio = streamer.stats.bytesFetched / size;
  rows.push(['Follow Output: bytes written by the job', `${size}`, `${(size / 1048576).toFixed(2)} MiB`, '']);
  rows.push(['Follow Output: bytes fetched / received', `${streamer.stats.bytesFetched} / ${received}`, `${streamer.stats.requests} requests in ${secs.toFixed(0)} s`, received === size ? 'all bytes' : 'MISSING BYTES']);
  rows.push(['Follow Output: fetched / written', ratio.toFixed(3), '<= 1.1', ratio <= 1.1 && result.reason === 'ended' ? 'PASS' : 'FAIL']);
  await client.remove(system, path).catch(() => undefined);
}

async function adminStats(path: string, method = 'GET'): Promise<{ requests: number }> {
  const gw = target().gateway;
  if (!gw?.admin) throw new Error('part 3 needs the local gateway (FIRECREST_GATEWAY)');
  const res = await fetch(`${gw.admin.replace(/\/+$/, '')}${path}`, { method, headers: { authorization: `Bearer ${gw.adminToken}` } });
  return method === 'GET' ? ((await res.json()) as { requests: number }) : { requests: 0 };
}

async function part3(client: FirecrestClient, system: string, home: string): Promise<void> {
  const seconds = Number(process.env.BENCH_HIDDEN_SECONDS ?? 30);
  const jobId = await client.submitJob(system, { script: '#!/bin/bash\nsleep 600\n', workingDirectory: home, partition: 'debug', name: 'bench-idle' });
  await new Promise((r) => setTimeout(r, 3000)); // let the scheduler list and start it
  const model = new JobsModel(fakeConnections(client));
  const scheduler = new RefreshScheduler({ run: (_r, signal) => model.load(signal) });
  try {
    for (const visible of [false, true]) {
      scheduler.setVisible(visible);
      if (visible) scheduler.request('manual');
      await new Promise((r) => setTimeout(r, 1500)); // let the first load settle before counting
      await adminStats('/stats/reset', 'POST');
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const perMin = ((await adminStats('/stats')).requests * 60) / seconds;
      rows.push([`Jobs refresh, view ${visible ? 'visible' : 'hidden'}, a job running`, `${perMin.toFixed(1)} req/min`, visible ? '(contrast)' : 'target 0', visible ? '' : perMin === 0 ? 'PASS' : 'FAIL']);
      scheduler.setVisible(false);
    }
  } finally {
    scheduler.dispose();
    await client.cancelJob(system, jobId).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  if (parts.includes('1')) part1();
  if (parts.includes('4')) part4();
  if (parts.includes('5')) part5();
  if (parts.includes('2') || parts.includes('3')) {
    const { client, system, home } = await connect();
    try {
      if (parts.includes('2')) await part2(client, system, home);
      if (parts.includes('3')) await part3(client, system, home);
    } finally {
      await client.dispose();
    }
  }
  console.log('| measure | value | detail | result |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  // Judged: the PASS/FAIL rows against their detail, and Follow Output's "all bytes" (a count, not a target).
  emitTable('jobs', ['measure', 'value', 'detail', 'result'], rows, (r) =>
    r[3] === 'PASS' || r[3] === 'FAIL' ? { target: String(r[2]), met: r[3] === 'PASS' }
      : r[3] === 'all bytes' || r[3] === 'MISSING BYTES' ? { target: 'all bytes', met: r[3] === 'all bytes' } : {});
  if (rows.some((r) => r[3] === 'FAIL' || r[3] === 'MISSING BYTES')) process.exitCode = 1;
}

void main();
