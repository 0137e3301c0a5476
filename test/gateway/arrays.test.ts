/**
 * Job arrays through the v2 and v1 compute routes, on Slurm and on the built-in scheduler: a
 * 100-task array is listed task by task (`A_T`, and on Slurm the tasks not started as
 * `A_[4-99]`), a running task also under its own numeric id (the only id a v2 path takes), one
 * task is cancelled by that id while the others finish, and each task's output lands at its own
 * `%A_%a` path. An array's id finds all its tasks.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, t, type Json } from './support';
import { scratchDir } from './support-fs';
import { until } from '../support/until';

const jobs = `/compute/${t.system}/jobs`;
const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE)/;
const TASKS = 100;
const SLOW = 7;

/** The indexes a row stands for: `12_3` -> [3]; `12_[4-9%2]` / `12_[1,3,5-7]` -> all of them. */
function indexesOf(id: string, arrayId: string): number[] {
  const m = new RegExp(`^${arrayId}_(?:(\\d+)|\\[([^\\]]+)\\])$`).exec(id);
  if (!m) return [];
  if (m[1] !== undefined) return [Number(m[1])];
  const out: number[] = [];
  for (const part of m[2].replace(/%\d+$/, '').split(',')) {
    const r = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!r) continue;
    for (let i = Number(r[1]); i <= Number(r[2] ?? r[1]); i += Number(r[3] ?? 1)) out.push(i);
  }
  return out;
}

async function readFile(path: string): Promise<string | undefined> {
  const r = await api(`/filesystem/${t.system}/ops/view`, { query: { path } });
  return r.status === 200 ? String(r.body.output) : undefined;
}

void describe('job arrays', () => {
  let wd = '';
  const mark = randomBytes(5).toString('hex');

  const submitted: string[] = [];

  let removeScratch = async (): Promise<void> => undefined;

  before(async () => {
    // The tasks' output files stay inside this suite's own folder, removed at the end.
    ({ path: wd, remove: removeScratch } = await scratchDir('arrays'));
  });
  after(async () => {
    for (const id of submitted) await api(`${jobs}/${id}`, { method: 'DELETE' });
    await removeScratch();
  });

  void it(`a ${TASKS}-task array: listed per task, one task cancelled by its own id, per-task output paths`, async () => {
    const script = [
      '#!/bin/bash',
      `#SBATCH --array=0-${TASKS - 1}`,
      `#SBATCH --output=${wd}/f7t-array-${mark}-%A_%a.out`,
      '#SBATCH --time=00:10:00',
      'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID, job $SLURM_JOB_ID"',
      `if [ "$SLURM_ARRAY_TASK_ID" = ${SLOW} ]; then echo "$SLURM_JOB_ID" > ${wd}/f7t-array-${mark}.slow; sleep 300; fi`,
    ].join('\n') + '\n';
    const r = await api(jobs, { method: 'POST', json: { job: { name: `f7t-array-${mark}`, workingDirectory: wd, script } } });
    assert.equal(r.status, 201, r.text);
    const arrayId = String(r.body.jobId);
    submitted.push(arrayId);
    assert.match(arrayId, /^\d+$/);

    // Submitted: the listing shows the array at once, every index accounted for.
    const listed = await until('the array in the listing', async () => {
      const l = await api(jobs);
      const rows = (l.body.jobs as Json[] ?? []).filter((j) => String(j.jobId).startsWith(`${arrayId}_`));
      const indexes = new Set(rows.flatMap((j) => indexesOf(String(j.jobId), arrayId)));
      return indexes.size === TASKS ? rows : undefined;
    }, 240_000);
    for (const row of listed) assert.equal(row.name, `f7t-array-${mark}`);

    // The slow task runs; its own numeric id (it wrote $SLURM_JOB_ID) is listed next to `A_7`.
    // The shell creates the file before echo writes to it: wait for the whole line.
    const slowId = await until('the slow task to start', async () => /^(\d+)\n$/.exec((await readFile(`${wd}/f7t-array-${mark}.slow`)) ?? '')?.[1]);
    const one = await api(`${jobs}/${slowId}`);
    assert.equal(one.status, 200, one.text);
    const ids = (one.body.jobs as Json[]).map((j) => String(j.jobId));
    assert.ok(ids.includes(`${arrayId}_${SLOW}`), `GET by the task's own id shows it as ${arrayId}_${SLOW}: ${ids.join(' ')}`);
    assert.ok(ids.includes(slowId), `and under its own id: ${ids.join(' ')}`);
    // A v2 path takes no `_`.
    assert.equal((await api(`${jobs}/${arrayId}_${SLOW}`)).status, 400);

    // Cancel that one task by its own id: it ends CANCELLED, the others complete.
    assert.equal((await api(`${jobs}/${slowId}`, { method: 'DELETE' })).status, 204);
    const all = await until('every task to end', async () => {
      const a = await api(`${jobs}/${arrayId}`);
      if (a.status !== 200) return undefined;
      const rows = (a.body.jobs as Json[]).filter((j) => String(j.jobId).startsWith(`${arrayId}_`));
      const ended = rows.filter((j) => FINAL.test(String(j.status.state)) && /^\d+_\d+$/.test(String(j.jobId)));
      return ended.length === TASKS && rows.length === TASKS ? rows : undefined;
    }, 240_000);
    const byTask = new Map(all.map((j) => [Number(String(j.jobId).split('_')[1]), String(j.status.state)]));
    assert.match(byTask.get(SLOW) ?? '', /^CANCELLED/);
    assert.equal([...byTask.values()].filter((s) => s === 'COMPLETED').length, TASKS - 1);

    // Each task wrote to its own `%A_%a` file.
    for (const task of [0, 42, TASKS - 1]) {
      const out = await readFile(`${wd}/f7t-array-${mark}-${arrayId}_${task}.out`);
      assert.match(out ?? '', new RegExp(`^task ${task} of ${arrayId}, job \\d+\\n`), `task ${task}'s output`);
    }
  });
});
