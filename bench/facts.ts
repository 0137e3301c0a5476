/**
 * bench:facts: what a side-car answer costs (src/core/sidecar): jobs submitted and requests made
 * beyond the wait in the queue, against the target of one job and three requests; and, in the
 * same run, the baseline of doing it by hand through the API (submit, wait for the job, download
 * the answer, remove it). Measured for a plain answer (`date`) and, where the cluster keeps
 * accounting (the gateway on Slurm), the efficiency report; the storage figures of every file
 * system, and the scratch purge preview. `--json` ends with one JSON line.
 * `npm run bench:facts` (the local gateway; FIRECREST_* for a deployment).
 */
import { createClient, type ClientEvents, type FirecrestClient } from '../src/core/index';
import { jobEfficiency } from '../src/core/facts/efficiency';
import { purgePreview, storageUsage } from '../src/core/facts/storage';
import { sidecarAnswer } from '../src/core/sidecar/answer';
import type { SidecarStats } from '../src/core/sidecar/sidecar';
import { target } from '../test/support/target';
import { atMost, emitJson, type Figure } from './report.cjs';

const t = target();
let requests = 0;
const events: ClientEvents = { onRequest: (e) => { if (!e.route.includes('token')) requests++; } };

async function home(c: FirecrestClient): Promise<string> {
  const user = (await c.userInfo(t.system)).user.name;
  const work = (await c.systems()).find((s) => s.name === t.system)?.fileSystems.find((f) => f.defaultWorkDir)?.path ?? '/home';
  return `${work.replace(/\/+$/, '')}/${user}`;
}

/** The same answer by hand: submit a job that writes it, wait, download, remove. */
async function byHand(c: FirecrestClient, dir: string): Promise<number> {
  const before = requests;
  const out = `${dir}/by-hand-${Date.now()}.out`;
  const id = await c.submitJob(t.system, { script: '#!/bin/bash\n#SBATCH --time=1\ndate +%s\n', workingDirectory: dir, stdoutPath: out, name: 'bench-by-hand' });
  await c.waitForJob(t.system, id, { overallTimeoutMs: 120_000 });
  await c.downloadSmall(t.system, out);
  await c.remove(t.system, out);
  return requests - before;
}

void (async () => {
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret }, events);
  const dir = await home(c);
  const place = { workingDirectory: dir, scratchDir: `${dir}/.firecrest-vscode/search` };
  const rows: string[][] = [];
  const figures: Record<string, Figure> = {};
  const measure = async (name: string, run: (count: (s: SidecarStats) => void) => Promise<unknown>): Promise<void> => {
    let jobs = 0;
    let stats: SidecarStats | undefined;
    const started = performance.now();
    await run((s) => { stats = s; jobs++; });
    if (!stats) throw new Error(`${name}: no side-car ran`);
    const answer = stats.requests - stats.waitRequests;
    rows.push([name, String(jobs), String(answer), String(stats.waitRequests), `${((performance.now() - started) / 1000).toFixed(1)} s`]);
    figures[`${name}: jobs`] = atMost(jobs, 1, 'jobs');
    figures[`${name}: requests beyond the wait`] = atMost(answer, 3, 'requests');
  };
  await measure('plain answer (date)', async (count) => count(await sidecarAnswer(c, t.system, 'bench', 'f7t-bench', ['date +%s'], place)));
  const accounting = t.gateway?.scheduler !== 'local';
  if (accounting) {
    const id = await c.submitJob(t.system, { script: '#!/bin/bash\n#SBATCH --time=1\nsleep 1\n', workingDirectory: dir, name: 'bench-eff' });
    await c.waitForJob(t.system, id, { overallTimeoutMs: 120_000 });
    await measure('efficiency report', async (count) => {
      const r = await jobEfficiency(c, t.system, [id], place);
      if (!r.jobs.has(id) || !r.stats) throw new Error('the job is not in the report');
      count(r.stats);
    });
  } else {
    rows.push(['efficiency report', '-', '-', '-', 'skipped: the built-in scheduler keeps no accounting']);
  }
  const paths = (await c.systems()).find((s) => s.name === t.system)?.fileSystems.map((f) => f.path) ?? [];
  await measure(`storage use (${paths.length} file systems)`, async (count) => count((await storageUsage(c, t.system, paths, place)).stats!));
  await measure('purge preview (home, 30 days)', async (count) => count((await purgePreview(c, t.system, dir, 30, place)).stats!));
  const baseline = await byHand(c, dir);
  rows.push(['baseline: the same by hand (submit, wait, download, remove)', '1', String(baseline), '-', '-']);
  figures['baseline requests by hand'] = { value: baseline, unit: 'requests' };
  const head = ['answer', 'jobs', 'requests beyond the wait (target <= 3)', 'requests while waiting', 'wall'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) console.log(r.map((x, i) => x.padEnd(width[i])).join('  '));
  emitJson('facts', figures);
  await c.dispose();
})();
