/**
 * bench:pyfirecrest: a staged upload and download of the same file through this extension's client
 * and through the official Python client (pyfirecrest), against the same local gateway in the same
 * run, rounds alternating who goes first. Both are timed for the whole call a user waits on: ours
 * from `upload`/`download` to its answer, the verification included (SHA-256 of the local file and
 * the cluster's checksum of the target); pyfirecrest's from `upload(..., blocking=True)` /
 * `download(..., blocking=True)` to its return (it does not verify). pyfirecrest runs in one
 * long-lived Python process that times each call itself, so the interpreter's start and imports
 * are not counted against it.
 *
 * pyfirecrest is on neither npm nor Debian. Point PYFIRECREST_SRC at a folder holding its `firecrest`
 * package (`git -C pyfirecrest archive v3.8.1 firecrest | tar -x -C DIR`); its dependencies come
 * from Debian (`apt-get install python3-httpx python3-requests python3-aiofiles python3-typer
 * python3-packaging python3-yaml python3-jwt`). Its import of `streamer` (the firecrest-streamer
 * package, used only by the "streamer" transfer method) is met by an empty stand-in module in a
 * temporary folder. Without PYFIRECREST_SRC the bench says so and ends (its JSON line: skipped).
 *
 * Run: `PYFIRECREST_SRC=DIR npm run bench:pyfirecrest [-- --json]`. BENCH_MIB (256), BENCH_ROUNDS
 * (4), BENCH_PART_MIB (unset: the gateway's default part size, as a user meets it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '../src/core/index';
import { target } from '../test/support/target';
import { atLeast, emitJson, type Figure } from './report.cjs';
import { median, selfCpu, writeRandom } from './util';

const t = target();
const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? 256) * MiB;
// Even by default: each side goes first equally often (the one going second finds Slurm warm).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PART_MIB = process.env.BENCH_PART_MIB;
const PYTHON = '/usr/bin/python3';

/** The Python side: one call per JSON line in, one JSON line out with its wall and CPU time. */
const DRIVER = `
import json, sys, time, logging
import firecrest
from firecrest.v2 import Firecrest
logging.disable(logging.CRITICAL)
cfg = json.loads(sys.argv[1])
client = Firecrest(firecrest_url=cfg["url"], authorization=firecrest.ClientCredentialsAuth(cfg["clientId"], cfg["clientSecret"], cfg["tokenUrl"]))
print(json.dumps({"ready": firecrest.__version__}), flush=True)
for line in sys.stdin:
    cmd = json.loads(line)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if cmd["op"] == "upload":
            client.upload(cfg["system"], cmd["local"], cmd["dir"], cmd["name"], blocking=True)
        else:
            client.download(cfg["system"], cmd["remote"], cmd["local"], blocking=True)
        print(json.dumps({"ms": (time.perf_counter() - t0) * 1000, "cpu": time.process_time() - c0}), flush=True)
    except Exception as e:
        print(json.dumps({"error": repr(e)}), flush=True)
`;

interface Timed { ms: number; cpu: number }

/** The long-lived pyfirecrest process. */
async function startPython(src: string, work: string): Promise<{ call(cmd: object): Promise<Timed>; version: string; stop(): void }> {
  const stub = join(work, 'stub');
  mkdirSync(join(stub, 'streamer'), { recursive: true });
  writeFileSync(join(stub, 'streamer', '__init__.py'), '');
  writeFileSync(join(stub, 'streamer', 'streamer_client.py'), '# stand-in: the streamer transfer method is not benchmarked\n');
  const driver = join(work, 'driver.py');
  writeFileSync(driver, DRIVER);
  const cfg = { url: t.url, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, system: t.system };
  const child = spawn(PYTHON, [driver, JSON.stringify(cfg)], { env: { PATH: '/usr/bin:/bin', PYTHONPATH: `${src}:${stub}`, HOME: work }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const r = await lines.next();
    if (r.done) throw new Error('pyfirecrest stopped');
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  const hello = await next();
  return {
    version: String(hello.ready),
    call: async (cmd) => {
      child.stdin.write(`${JSON.stringify(cmd)}\n`);
      const r = await next();
      if (typeof r.error === 'string') throw new Error(`pyfirecrest: ${r.error}`);
      return { ms: Number(r.ms), cpu: Number(r.cpu) };
    },
    stop: () => { child.stdin.end(); },
  };
}

async function main(): Promise<void> {
  const src = process.env.PYFIRECREST_SRC;
  if (!src || !existsSync(join(src, 'firecrest', '__init__.py'))) {
    console.log('bench:pyfirecrest: set PYFIRECREST_SRC to a folder holding pyfirecrest\'s `firecrest` package (see the header of bench/pyfirecrest.ts); nothing measured.');
    emitJson('pyfirecrest', { skipped: { value: 'PYFIRECREST_SRC is not set' } });
    return;
  }
  const deps = spawnSync(PYTHON, ['-c', 'import httpx, requests, aiofiles, typer, yaml, jwt, packaging'], { encoding: 'utf8' });
  if (deps.status !== 0) throw new Error(`pyfirecrest's dependencies are missing: apt-get install python3-httpx python3-requests python3-aiofiles python3-typer python3-packaging python3-yaml python3-jwt\n${deps.stderr}`);
  const g = t.gateway;
  const admin = async (body: unknown): Promise<void> => {
    if (!g?.admin) return;
    const res = await fetch(`${g.admin}/settings`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken ?? ''}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`admin /settings: ${res.status}`);
  };
  const S = t.system;
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret, requestTimeoutMs: 300_000 });
  const work = mkdtempSync(join(tmpdir(), 'f7t-bench-py-'));
  const home = `/home/${(await c.userInfo(S)).user.name}/f7t-bench-py-${process.pid}`;
  await c.mkdir(S, home, { parents: true });
  if (PART_MIB) await admin({ maxPartSize: Number(PART_MIB) * MiB });
  const py = await startPython(src, work);
  try {
    const file = join(work, 'src.bin');
    await writeRandom(file, SIZE);
    const ours = { up: [] as Timed[], down: [] as Timed[] };
    const theirs = { up: [] as Timed[], down: [] as Timed[] };
    const oursUpload = async (): Promise<Timed> => {
      const [t0, c0] = [performance.now(), selfCpu()];
      const r = await c.transfers.upload(S, file, `${home}/ours.bin`);
      if (!r.verified) throw new Error(`our upload was not verified: ${r.note ?? ''}`);
      return { ms: performance.now() - t0, cpu: selfCpu() - c0 };
    };
    const oursDownload = async (): Promise<Timed> => {
      const [t0, c0] = [performance.now(), selfCpu()];
      const r = await c.transfers.download(S, `${home}/ours.bin`, join(work, 'ours-down.bin'));
      if (!r.verified) throw new Error('our download was not verified');
      const took = { ms: performance.now() - t0, cpu: selfCpu() - c0 };
      rmSync(join(work, 'ours-down.bin'));
      return took;
    };
    const theirUpload = async (): Promise<Timed> => {
      const took = await py.call({ op: 'upload', local: file, dir: home, name: 'theirs.bin' });
      // Checked after the clock stopped: the file is there, whole, when pyfirecrest returns.
      const size = (await c.stat(S, `${home}/theirs.bin`)).size;
      if (size !== SIZE) throw new Error(`pyfirecrest's upload returned with ${size} of ${SIZE} bytes in place`);
      return took;
    };
    const theirDownload = async (): Promise<Timed> => {
      const took = await py.call({ op: 'download', remote: `${home}/theirs.bin`, local: join(work, 'theirs-down.bin') });
      rmSync(join(work, 'theirs-down.bin'));
      return took;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const theirsFirst = round % 2 === 1;
      if (theirsFirst) theirs.up.push(await theirUpload());
      ours.up.push(await oursUpload());
      if (!theirsFirst) theirs.up.push(await theirUpload());
      if (theirsFirst) theirs.down.push(await theirDownload());
      ours.down.push(await oursDownload());
      if (!theirsFirst) theirs.down.push(await theirDownload());
      const r = (a: Timed[], b: Timed[]): string => `${(a.at(-1)!.ms / 1000).toFixed(2)} s vs ${(b.at(-1)!.ms / 1000).toFixed(2)} s (${(b.at(-1)!.ms / a.at(-1)!.ms).toFixed(2)}x)`;
      console.error(`round ${round + 1}/${ROUNDS} (load ${loadavg()[0].toFixed(1)}${theirsFirst ? ', pyfirecrest first' : ''}): upload ours ${r(ours.up, theirs.up)}; download ours ${r(ours.down, theirs.down)}`);
    }
    const figures: Record<string, Figure> = {};
    console.log(`\n${SIZE / MiB} MiB staged through the same gateway (part size ${PART_MIB ? `${PART_MIB} MiB` : 'the gateway\'s default'}), pyfirecrest ${py.version}, median of ${ROUNDS} rounds, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('direction  ours s (verified)  pyfirecrest s  pyfirecrest / ours (rounds)  ours CPU s  pyfirecrest CPU s  target');
    for (const [direction, a, b] of [['upload', ours.up, theirs.up], ['download', ours.down, theirs.down]] as const) {
      const [oursMs, theirsMs] = [median(a.map((x) => x.ms)), median(b.map((x) => x.ms))];
      const ratio = Number((theirsMs / oursMs).toFixed(2));
      const rounds = a.map((x, i) => (b[i].ms / x.ms).toFixed(2)).join(' ');
      console.log(`${direction.padEnd(9)}  ${(oursMs / 1000).toFixed(2).padStart(17)}  ${(theirsMs / 1000).toFixed(2).padStart(13)}  ${`${ratio.toFixed(2)} (${rounds})`.padStart(27)}  ${median(a.map((x) => x.cpu)).toFixed(2).padStart(10)}  ${median(b.map((x) => x.cpu)).toFixed(2).padStart(17)}  >= 1.0`);
      figures[direction] = { ...atLeast(ratio, 1.0, 'x'), oursSeconds: Number((oursMs / 1000).toFixed(2)), pyfirecrestSeconds: Number((theirsMs / 1000).toFixed(2)), rounds } as Figure;
    }
    console.log('\n"pyfirecrest / ours" above 1 means ours finished first. Ours includes its verification (a SHA-256 of the local file and the checksum of the target on the cluster); pyfirecrest verifies nothing.');
    emitJson('pyfirecrest', figures);
  } finally {
    py.stop();
    rmSync(work, { recursive: true, force: true });
    await c.remove(S, home).catch(() => undefined);
    if (PART_MIB) await admin({ maxPartSize: 2147483648 }).catch(() => undefined);
    await c.dispose();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
