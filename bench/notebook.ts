/**
 * bench:notebook: a notebook kernel in a job (src/core/notebook). The round trip of a `1+1` cell
 * (its request uploaded, the driver's answer read by offset) against the target of 1.5 s, and the
 * requests each cell costs; an idle kernel's requests over 30 s beyond its heartbeat (target 0);
 * and, in the same run, the baseline of the same `1+1` as a batch job (submit, wait, read its
 * output), the way to run Python on a node without a kernel. `--json` ends with one JSON line.
 * `npm run bench:notebook` (the local gateway; FIRECREST_* for a deployment).
 */
import { createClient, type ClientEvents, type FirecrestClient } from '../src/core/index';
import { NotebookSession, notebookScratch } from '../src/core/notebook/session';
import { target } from '../test/support/target';
import { atMost, emitJson, type Figure } from './report.cjs';

const t = target();
let requests = 0;
const events: ClientEvents = { onRequest: (e) => { if (!e.route.includes('token')) requests++; } };
const CELLS = 20;
const IDLE_MS = 30_000;

async function home(c: FirecrestClient): Promise<string> {
  const user = (await c.userInfo(t.system)).user.name;
  const work = (await c.systems()).find((s) => s.name === t.system)?.fileSystems.find((f) => f.defaultWorkDir)?.path ?? '/home';
  return `${work.replace(/\/+$/, '')}/${user}`;
}

/** `1+1` as a batch job: submit, wait, read its output. */
async function batchJob(c: FirecrestClient, dir: string): Promise<{ ms: number; requests: number }> {
  const before = requests;
  const started = performance.now();
  const out = `${dir}/bench-batch-${Date.now()}.out`;
  const id = await c.submitJob(t.system, { script: '#!/bin/bash\n#SBATCH --time=1\npython3 -c "print(1+1)"\n', workingDirectory: dir, stdoutPath: out, name: 'bench-notebook-batch' });
  await c.waitForJob(t.system, id, { overallTimeoutMs: 120_000 });
  const text = new TextDecoder().decode(await c.downloadSmall(t.system, out));
  if (text.trim() !== '2') throw new Error(`the batch job printed ${JSON.stringify(text)}`);
  const ms = performance.now() - started;
  await c.remove(t.system, out);
  return { ms, requests: requests - before };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

void (async () => {
  const c = await createClient({ profile: { name: 'bench', url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId }, clientSecret: t.clientSecret }, events);
  const dir = await home(c);
  const kernel = await NotebookSession.start(c, t.system, notebookScratch(dir), { timeMinutes: 10 });
  try {
    // The first cell waits for the job and the driver to start: not counted.
    await kernel.execute('warm', '1', () => undefined);
    const times: number[] = [];
    const before = requests;
    for (let i = 0; i < CELLS; i++) {
      const started = performance.now();
      let value = '';
      await kernel.execute(`c${i}`, '1+1', (m) => { if (m.type === 'display') value = String(m.data['text/plain']); });
      times.push(performance.now() - started);
      if (value !== '2') throw new Error(`1+1 gave ${value}`);
    }
    const perCell = (requests - before) / CELLS;
    const idleBefore = requests;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = requests - idleBefore;
    const baseline = await batchJob(c, dir);
    const p50 = median(times);
    const rows = [
      ['kernel: 1+1 round trip, p50', `${Math.round(p50)} ms`, '<= 1500 ms'],
      ['kernel: 1+1 round trip, max', `${Math.round(Math.max(...times))} ms`, ''],
      ['kernel: requests per cell', perCell.toFixed(1), ''],
      [`kernel: requests while idle for ${IDLE_MS / 1000} s (heartbeat every 60 s)`, String(idle), '0'],
      ['baseline: 1+1 as a batch job (submit, wait, read)', `${Math.round(baseline.ms)} ms, ${baseline.requests} requests`, ''],
      ['ratio: batch job / kernel round trip', `${(baseline.ms / p50).toFixed(1)}x`, ''],
    ];
    const width = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) console.log(r.map((x, i) => x.padEnd(width[i])).join('  '));
    const figures: Record<string, Figure> = {
      'cell round trip p50': atMost(Math.round(p50), 1500, 'ms'),
      'requests per cell': { value: Number(perCell.toFixed(1)), unit: 'requests' },
      'requests while idle 30 s': atMost(idle, 0, 'requests'),
      'baseline batch job round trip': { value: Math.round(baseline.ms), unit: 'ms' },
      'baseline batch job requests': { value: baseline.requests, unit: 'requests' },
    };
    emitJson('notebook', figures);
  } finally {
    await kernel.shutdown();
    await c.dispose();
  }
})();
