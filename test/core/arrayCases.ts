/**
 * Job arrays through the client (issue #23), shared by the v2 and v1 suites: an array submitted
 * with `--array` is listed as its tasks (each once: the v2 twins under numeric ids are folded
 * back onto their tasks), its id stands for the whole array, one task is cancelled on its own
 * while the others finish, and each task's output path is its own. On v2 the gateway's upstream
 * compat mode shows what a real server does with a task's own id (Slurm refuses it): the client
 * says so with NotSupportedError and nothing is cancelled; the array still cancels as a whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NotSupportedError, type FirecrestClient, type Job } from '../../src/core/index';
import { arrayCounts, describeCounts } from '../../src/core/jobArrays';
import { gatewayOnly } from '../support/target';
import { client, dec, scratchDir, t } from './support';
import { until } from '../support/until';

const S = t.system;

async function compat(mode: 'none' | 'upstream'): Promise<void> {
  const g = t.gateway;
  if (!g?.admin || !g.adminToken) throw new Error('no gateway admin API');
  const res = await fetch(`${g.admin}/compat`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ mode }) });
  assert.equal(res.status, 200, await res.text());
}

function tasksOf(jobs: Job[], arrayId: string): Job[] {
  return jobs.filter((j) => j.array?.jobId === arrayId);
}

export function arraySuite(api: 'v2' | 'v1'): void {
  void describe(`job arrays (${api})`, { skip: t.apiVersion !== api ? `runs with API ${api}` : false }, () => {
    let c: FirecrestClient;
    let dir = '';
    /** Arrays this suite submitted: cancelled at the end whatever happened (their tasks sleep). */
    const submitted: string[] = [];
    before(async () => {
      c = await client({}, { apiVersion: api });
      dir = await scratchDir(c, 'arrays');
    });
    after(async () => {
      for (const id of submitted) await c.cancelJob(S, id).catch(() => undefined);
      await c.remove(S, dir).catch(() => undefined);
      await c.dispose();
    });

    void it('lists each task once, sums the array up by its id, cancels one task, and each task has its own output', async () => {
      const script = [
        '#!/bin/bash', '#SBATCH --array=0-5', '#SBATCH --time=00:05:00', `#SBATCH --output=${dir}/out-%A_%a.txt`,
        'echo "task $SLURM_ARRAY_TASK_ID"',
        `if [ "$SLURM_ARRAY_TASK_ID" -ge 4 ]; then sleep 300; fi`,
      ].join('\n') + '\n';
      const arrayId = await c.submitJob(S, { name: 'f7t-arrays', workingDirectory: dir, script });
      submitted.push(arrayId);

      // Tasks 4 and 5 run on (the node has room for both once 0-3 are done).
      const listed = await until('tasks 4 and 5 running', async () => {
        const tasks = tasksOf(await c.jobs(S), arrayId);
        const running = tasks.filter((j) => j.array?.taskId !== undefined && j.array.taskId >= 4 && j.stateClass === 'running');
        // (Accounting may show the ended tasks a moment after they ended.)
        return running.length === 2 && arrayCounts(tasks).total === 6 ? tasks : undefined;
      });
      // Each task once (a twin under a numeric id is folded onto its task), and nothing else of the array.
      const ids = listed.map((j) => j.id);
      assert.equal(new Set(ids).size, ids.length, ids.join(' '));
      assert.equal(arrayCounts(listed).total, 6, describeCounts(arrayCounts(listed)));
      const four = listed.find((j) => j.array?.taskId === 4)!;
      if (api === 'v2') assert.match(four.ownId ?? '', /^\d+$/, `a running task carries its own numeric id on v2: ${JSON.stringify(listed.map((j) => [j.id, j.ownId, j.state, j.startTime]))}`);
      assert.equal(four.id, `${arrayId}_4`);

      // A task by its array form, on v2 too (whose paths take no `_`), and its files.
      assert.equal((await c.job(S, `${arrayId}_4`)).id, `${arrayId}_4`);
      assert.equal((await c.jobMetadata(S, `${arrayId}_4`)).stdoutPath, `${dir}/out-${arrayId}_4.txt`);

      // The array's id stands for all of it.
      const whole = await c.job(S, arrayId);
      assert.equal(whole.stateClass, 'running');
      assert.equal(whole.array?.count, 6);

      // Against an upstream v2 server (gateway compat mode): Slurm refuses a task's own id, the
      // client says so, and nothing is cancelled.
      if (api === 'v2' && !gatewayOnly()) {
        await compat('upstream');
        try {
          await assert.rejects(c.cancelJobTask(S, four), (e: Error) => e instanceof NotSupportedError && /cancel the whole array/.test(e.message));
        } finally {
          await compat('none');
        }
        assert.equal(tasksOf(await c.jobs(S), arrayId).filter((j) => j.stateClass === 'running').length, 2, 'nothing was cancelled');
      }

      // One task cancelled on its own; the other keeps running.
      await c.cancelJobTask(S, four);
      const after4 = await until('task 4 cancelled', async () => {
        const tasks = tasksOf(await c.jobs(S), arrayId);
        return /^CANCELLED/.test(tasks.find((j) => j.array?.taskId === 4)?.state ?? '') ? tasks : undefined;
      });
      assert.equal(after4.find((j) => j.array?.taskId === 5)?.stateClass, 'running');
      const counts = arrayCounts(after4);
      assert.deepEqual([counts.running, counts.done, counts.failed], [1, 5, 1], describeCounts(counts));

      // The rest by the array's id.
      await c.cancelJob(S, arrayId);
      const ended = await until('the array to end', async () => {
        const j = await c.job(S, arrayId);
        return j.isFinal ? j : undefined;
      });
      assert.match(ended.state, /^CANCELLED/);

      for (const task of [0, 3]) {
        assert.equal(dec(await c.downloadSmall(S, `${dir}/out-${arrayId}_${task}.txt`)), `task ${task}\n`);
      }
    });
  });
}
