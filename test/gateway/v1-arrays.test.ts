/**
 * Job arrays through API v1: the queue lists each task as squeue's `%i` does (`12_3`, the tasks not
 * started as `12_[4-9]`), one task is cancelled by its array-form id, and the array's id cancels
 * the rest.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Json } from './support';
import { scratch, taskOf } from './v1-support';
import { until } from '../support/until';

const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT)/;

async function queue(ids: string): Promise<Json[]> {
  const task = await taskOf('/compute/jobs', { query: { jobs: ids } });
  return Object.values((task.data ?? {}) as Record<string, Json>);
}

async function acct(ids: string): Promise<Json[]> {
  const task = await taskOf('/compute/acct', { query: { jobs: ids } });
  return Array.isArray(task.data) ? (task.data as Json[]) : [];
}

void describe('job arrays (v1)', () => {
  void it('lists tasks in array form, cancels one task by `A_T` and the rest by the array id', async () => {
    const dir = await scratch('arrays');
    try {
      const script = `#!/bin/bash\n#SBATCH --array=1-3\n#SBATCH --output=${dir.path}/out-%A_%a.txt\n#SBATCH --time=00:05:00\necho "task $SLURM_ARRAY_TASK_ID"\nsleep 300\n`;
      const sub = await taskOf('/compute/jobs/upload', { method: 'POST', multipart: { file: { blob: new Blob([script]), filename: 'array.sh' } } }, 201);
      assert.equal(sub.status, '200', JSON.stringify(sub));
      const arrayId = String(sub.data.jobid);
      const rows = await until<Json[]>('the array in the queue', async () => {
        const q = await queue(arrayId);
        return q.some((j) => j.jobid === `${arrayId}_1` && j.state === 'RUNNING') ? q : undefined;
      });
      assert.ok(rows.every((j) => String(j.jobid).startsWith(`${arrayId}_`)), rows.map((j) => String(j.jobid)).join(' '));
      assert.equal(rows.find((j) => j.jobid === `${arrayId}_1`)?.job_file_out, `${dir.path}/out-${arrayId}_1.txt`);

      const one = await taskOf(`/compute/jobs/${arrayId}_1`, { method: 'DELETE' });
      assert.equal(one.status, '200', JSON.stringify(one));
      const rest = await taskOf(`/compute/jobs/${arrayId}`, { method: 'DELETE' });
      assert.equal(rest.status, '200', JSON.stringify(rest));
      const ended = await until<Json[]>('every task to end', async () => {
        const a = await acct(arrayId);
        const tasks = a.filter((j) => /^\d+_\d+$/.test(String(j.jobid)));
        return tasks.length === 3 && tasks.every((j) => FINAL.test(String(j.state))) ? tasks : undefined;
      });
      assert.deepEqual(ended.map((j) => String(j.jobid)).sort(), [1, 2, 3].map((i) => `${arrayId}_${i}`));
      assert.ok(ended.every((j) => /^CANCELLED/.test(String(j.state))), ended.map((j) => `${j.jobid} ${j.state}`).join(', '));
    } finally {
      await dir.remove();
    }
  });
});
