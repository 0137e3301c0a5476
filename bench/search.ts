/**
 * Search on Cluster benchmark: a generated tree of 10,000 files (about 200 MiB) is sent to the
 * cluster as one archive, then searched through `searchOnCluster`. Measured in the same run:
 * - the search: time to the first result and to the last; requests made; bytes of output fetched
 *   against the size of the output itself;
 * - `grep -rn` run directly over the same files (the cluster here is this machine);
 * - a job that only runs `true`, submitted and polled the way a search is: the scheduling floor.
 * Target: the search's time beyond the floor is at most 1.3x the direct grep's, and the bytes
 * fetched at most 1.1x the output. BENCH_FILES / BENCH_LINES change the tree; BENCH_ROUNDS (3)
 * takes the median. `--json` ends with one JSON line of the figures.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type FirecrestClient } from '../src/core/index';
import { SEARCH_POLL, searchOnCluster, type SearchMatch } from '../src/core/search/clusterSearch';
import { makeTree, treeArchive } from '../test/support/searchTree';
import { target } from '../test/support/target';
import { atMost, emitJson, jsonWanted } from './report.cjs';
import { median } from './util';

const t = target();
const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const LINES = Number(process.env.BENCH_LINES ?? 460);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** One of the tree's filler words: a few hundred lines, as a typical search finds. */
const PATTERN = process.env.BENCH_PATTERN ?? 'wabc';
/**
 * A cluster's file system does not hold a user's tree in the login node's page cache; here the
 * cache is emptied before each grep and each search (as root; else both run warm, and it says so).
 */
function dropCaches(): boolean {
  try {
    spawnSync('/usr/bin/sync');
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function floorJob(c: FirecrestClient, dir: string): Promise<number> {
  const t0 = performance.now();
  const id = await c.submitJob(t.system, { script: '#!/bin/bash\n#SBATCH --output=/dev/null\n#SBATCH --error=/dev/null\ntrue\n', workingDirectory: dir, name: 'f7t-floor' });
  // The same cadence as a search's polls.
  for (let wait: number = SEARCH_POLL.firstMs; ; wait = Math.min(SEARCH_POLL.maxMs, Math.round(wait * SEARCH_POLL.growth))) {
    const job = await c.job(t.system, id).catch(() => undefined);
    if (job?.isFinal) return performance.now() - t0;
    await sleep(wait);
  }
}

function directGrep(root: string): number {
  const outDir = mkdtempSync(join(tmpdir(), 'f7t-bench-grep-'));
  const fd = openSync(join(outDir, 'out'), 'w');
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/grep', ['-rnIZ', '--exclude-dir=.git', '-F', '-i', '-e', PATTERN, '--', '.'], { cwd: root, stdio: ['ignore', fd, 'ignore'] });
  const ms = performance.now() - t0;
  closeSync(fd);
  rmSync(outDir, { recursive: true, force: true });
  if (r.status !== 0 && r.status !== 1) throw new Error(`grep failed: ${r.status}`);
  return ms;
}

async function main(): Promise<void> {
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret, requestTimeoutMs: 60_000 });
  const user = (await c.userInfo(t.system)).user.name;
  const dir = `/home/${user}/f7t-bench-search-${Date.now().toString(36)}`;
  const tree = makeTree(FILES, { lineCount: LINES, lineLength: 8 });
  try {
    await c.mkdir(t.system, `${dir}/tree`, { parents: true });
    const archive = await treeArchive(tree);
    await c.transfers.uploadBytes(t.system, archive, `${dir}/tree.tgz`);
    await c.extract(t.system, `${dir}/tree.tgz`, `${dir}/tree`, { overallTimeoutMs: 600_000 });
    await c.remove(t.system, `${dir}/tree.tgz`).catch(() => undefined);
    // The direct grep reads the cluster's copy where the cluster is this machine.
    const grepRoot = t.gateway ? `${dir}/tree` : tree.dir;
    const rows: { first: number; last: number; floor: number; grep: number; overhead: number; requests: number; fetched: number; output: number; matches: number }[] = [];
    let cold = true;
    for (let round = 0; round < ROUNDS; round++) {
      const floor = await floorJob(c, dir);
      cold = dropCaches() && cold;
      const grep = directGrep(grepRoot);
      cold = dropCaches() && cold;
      const t0 = performance.now();
      let first = 0;
      const matches: SearchMatch[] = [];
      const s = await searchOnCluster(c, t.system, { root: `${dir}/tree`, pattern: PATTERN, maxResults: 1_000_000 }, {
        scratchDir: `${dir}/.scratch`,
        workingDirectory: dir,
        tool: 'grep',
        onMatches: (m) => { if (!first) first = performance.now() - t0; matches.push(...m); },
      });
      const last = performance.now() - t0;
      rows.push({ first, last, floor, grep, overhead: last - floor, requests: s.requests, fetched: s.bytesFetched, output: s.outputBytes, matches: s.matches });
      console.log(`round ${round + 1}: first ${first.toFixed(0)} ms, last ${last.toFixed(0)} ms, floor ${floor.toFixed(0)} ms, direct grep ${grep.toFixed(0)} ms; ${s.matches} matches, ${s.requests} requests, ${s.bytesFetched} of ${s.outputBytes} bytes fetched`);
    }
    const m = (k: keyof (typeof rows)[number]) => median(rows.map((r) => r[k]));
    // Beyond the floor measured in the same round (the scheduler's pace drifts between rounds).
    const overhead = Math.max(0, m('overhead'));
    const ratio = overhead / m('grep');
    const fetchedRatio = m('fetched') / Math.max(1, m('output'));
    console.log(`\nSearch on Cluster for ${JSON.stringify(PATTERN)}, ${FILES} files (${(tree.bytes / 1048576).toFixed(0)} MiB), ${cold ? 'cold page cache' : 'WARM page cache (not root: caches not dropped)'}, median of ${ROUNDS}:`);
    console.log(`  first result ${m('first').toFixed(0)} ms, last ${m('last').toFixed(0)} ms; scheduling floor ${m('floor').toFixed(0)} ms; direct grep ${m('grep').toFixed(0)} ms`);
    console.log(`  search beyond the floor: ${overhead.toFixed(0)} ms = ${ratio.toFixed(2)}x the direct grep (target <= 1.3x)`);
    console.log(`  ${m('matches')} matches; ${m('requests')} requests; fetched ${m('fetched')} bytes for ${m('output')} bytes of output = ${fetchedRatio.toFixed(3)}x (target <= 1.1x)`);
    if (jsonWanted) {
      emitJson('search', {
        files: { value: FILES },
        treeMiB: { value: Math.round(tree.bytes / 1048576), unit: 'MiB' },
        firstResultMs: { value: Math.round(m('first')), unit: 'ms' },
        lastResultMs: { value: Math.round(m('last')), unit: 'ms' },
        floorMs: { value: Math.round(m('floor')), unit: 'ms' },
        coldCache: { value: String(cold) },
        directGrepMs: { value: Math.round(m('grep')), unit: 'ms' },
        requests: { value: m('requests') },
        overheadVsGrep: atMost(Number(ratio.toFixed(2)), 1.3, 'x'),
        fetchedVsOutput: atMost(Number(fetchedRatio.toFixed(3)), 1.1, 'x'),
      });
    }
  } finally {
    tree.remove();
    await c.remove(t.system, dir, { overallTimeoutMs: 300_000 }).catch(() => undefined);
    await c.dispose();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
