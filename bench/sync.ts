/**
 * Sync to Cluster benchmark (issue #21), for a generated project of 1,000 small files in nested
 * folders. Measured in the same run:
 * - a cold sync (empty remote directory, no manifest): requests and time. The directory is made
 *   before the clock starts, as Map Folder to Cluster makes it and as the baseline's is;
 * - the baseline a user would script by hand: `tar czf` of the folder, one upload of the archive
 *   with curl, and the extract call (curl);
 * - a warm sync after 3 files changed: requests;
 * - a sync with nothing to do: requests.
 * Targets: cold sync ≤ 6 requests and ≤ 1.5x the baseline's time; warm ≤ 4 requests; no change 1.
 * BENCH_ROUNDS (5): the median, of each round's own ratio (both measured back to back; the
 * machine's pace drifts between rounds), after BENCH_WARMUP (1) rounds that are printed but not
 * counted, as bench:fs does: the first sync in a process pays for compiling its code (the first
 * round's ratio is reported on its own). `--json` ends with one JSON line of the figures.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ClientEvents, type FirecrestClient } from '../src/core/index';
import type { Manifest } from '../src/core/sync/plan';
import { previewSync, runSync, type ManifestStore, type SyncTarget } from '../src/core/sync/syncToCluster';
import { makeProject } from '../test/support/syncProject';
import { target } from '../test/support/target';
import { atMost, emitJson, jsonWanted } from './report.cjs';
import { median } from './util';

const t = target();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);

function memoryStore(): ManifestStore {
  let m: Manifest | undefined;
  return { load: async () => (m ? (JSON.parse(JSON.stringify(m)) as Manifest) : undefined), save: async (x) => { m = JSON.parse(JSON.stringify(x)) as Manifest; } };
}

/** `tar czf`, one curl upload, one curl extract: what a user would script by hand. */
async function baseline(c: FirecrestClient, project: string, remoteDir: string, work: string): Promise<number> {
  const token = await c.accessToken();
  const archive = join(work, `baseline-${Date.now()}.tar.gz`);
  const t0 = performance.now();
  const tar = spawnSync('/usr/bin/tar', ['czf', archive, '-C', project, '.']);
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr.toString()}`);
  const base = `${t.url}/filesystem/${t.system}/ops`;
  const up = spawnSync('/usr/bin/curl', ['-sS', '-f', '-o', '/dev/null', '-H', `Authorization: Bearer ${token}`, '-F', `file=@${archive};filename=project.tar.gz`, `${base}/upload?path=${encodeURIComponent(remoteDir)}`]);
  if (up.status !== 0) throw new Error(`curl upload: ${up.stderr.toString()}`);
  const body = JSON.stringify({ path: `${remoteDir}/project.tar.gz`, targetPath: remoteDir, compression: 'gzip' });
  const ex = spawnSync('/usr/bin/curl', ['-sS', '-f', '-o', '/dev/null', '-H', `Authorization: Bearer ${token}`, '-H', 'content-type: application/json', '-d', body, `${base}/extract`]);
  if (ex.status !== 0) throw new Error(`curl extract: ${ex.stderr.toString()}`);
  return performance.now() - t0;
}

async function main(): Promise<void> {
  let requests = 0;
  const events: ClientEvents = { onRequest: () => { requests++; } };
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret, requestTimeoutMs: 120_000 }, events);
  const work = mkdtempSync(join(tmpdir(), 'f7t-bench-sync-'));
  const project = join(work, 'project');
  makeProject(project, 0);
  const user = (await c.userInfo(t.system)).user.name;
  const base = `/home/${user}/f7t-bench-sync-${Date.now().toString(36)}`;
  const directLimit = (await c.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize;
  const rows: { cold: number; coldRequests: number; baseline: number; warmRequests: number; idleRequests: number }[] = [];
  try {
    let first: number | undefined;
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const store = memoryStore();
      const sync: SyncTarget = { system: t.system, remoteRoot: `${base}/r${round}/project`, localRoot: project };
      await c.mkdir(t.system, `${base}/b${round}`, { parents: true });
      await c.mkdir(t.system, sync.remoteRoot, { parents: true });
      const b = await baseline(c, project, `${base}/b${round}`, work);
      requests = 0;
      const t0 = performance.now();
      await runSync(c, await previewSync(c, sync, { store, directLimit }), { store, directLimit });
      const cold = performance.now() - t0;
      const coldRequests = requests;
      for (const rel of ['mod1/sub1/file1.py', 'mod2/sub2/file2.py', 'mod4/sub3/file3.py']) appendFileSync(join(project, rel), `# round ${round}\n`);
      requests = 0;
      await runSync(c, await previewSync(c, sync, { store, directLimit }), { store, directLimit });
      const warmRequests = requests;
      requests = 0;
      const idle = await previewSync(c, sync, { store, directLimit });
      await runSync(c, idle, { store, directLimit });
      const idleRequests = requests;
      first ??= cold / b;
      const warmup = round < WARMUP;
      if (!warmup) rows.push({ cold, coldRequests, baseline: b, warmRequests, idleRequests });
      console.log(`${warmup ? 'warm-up round, not counted' : `round ${round + 1 - WARMUP}`}: cold sync ${cold.toFixed(0)} ms in ${coldRequests} requests; baseline (tar + curl upload + extract) ${b.toFixed(0)} ms; warm sync ${warmRequests} requests; no change ${idleRequests}`);
    }
    const m = (k: keyof (typeof rows)[number]) => median(rows.map((r) => r[k]));
    const ratio = median(rows.map((r) => r.cold / r.baseline));
    console.log(`\nSync to Cluster, 1,000 files, median of ${ROUNDS}:`);
    console.log(`  cold sync ${m('cold').toFixed(0)} ms = ${ratio.toFixed(2)}x the baseline's ${m('baseline').toFixed(0)} ms (target <= 1.5x); ${m('coldRequests')} requests (target <= 6)`);
    console.log(`  warm sync with 3 changes: ${m('warmRequests')} requests (target <= 4); no change: ${m('idleRequests')} (target 1)`);
    if (first !== undefined) console.log(`  the process's first round (compiling the sync's code): ${first.toFixed(2)}x`);
    if (jsonWanted) {
      emitJson('sync', {
        files: { value: 1000 },
        coldSyncMs: { value: Math.round(m('cold')), unit: 'ms' },
        baselineMs: { value: Math.round(m('baseline')), unit: 'ms' },
        coldVsBaseline: atMost(Number(ratio.toFixed(2)), 1.5, 'x'),
        ...(first !== undefined ? { firstRoundColdVsBaseline: { value: Number(first.toFixed(2)), unit: 'x' } } : {}),
        coldRequests: atMost(m('coldRequests'), 6),
        warmRequests: atMost(m('warmRequests'), 4),
        noChangeRequests: atMost(m('idleRequests'), 1),
      });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await c.remove(t.system, base, { overallTimeoutMs: 300_000 }).catch(() => undefined);
    await c.dispose();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
