/**
 * A v2 move/copy, or a job submission, whose answer is lost (the gateway runs the handler, then
 * drops the connection): the client finds the job it started and reports what the job did, never
 * the network error of a move that happened, nor success for one that did not; a submission is
 * never made twice.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ServerError, UnavailableError, type FirecrestClient } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, dec, enc, gateway, scratchDir, t } from './support';

const skip = gatewayOnly();

void describe('v2 move/copy with a lost submission answer', { skip }, () => {
  let c: FirecrestClient;
  let dir: string;
  const S = t.system;
  const wait = { overallTimeoutMs: 120_000 };
  const drop = (kind: 'dropAfter' | 'dropBefore', op: 'mv' | 'cp') => gateway.faults({ [kind]: { next: 1, match: `^POST /v2/filesystem/[^/]+/transfer/${op}$` } });
  const names = async () => (await c.list(S, dir)).map((e) => e.name).sort();

  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'lostreply');
  });
  afterEach(async () => {
    await gateway.clearFaults();
  });
  after(async () => {
    await c.remove(S, dir, wait).catch(() => undefined);
    await c.dispose();
  });

  void it('move: the answer is dropped after the job was submitted; the move is reported done', async () => {
    await c.uploadSmall(S, dir, 'm.txt', enc('M'));
    await drop('dropAfter', 'mv');
    const job = await c.move(S, `${dir}/m.txt`, `${dir}/m2.txt`, wait);
    assert.ok(job?.jobId, 'the job that was found');
    assert.deepEqual(await names(), ['m2.txt']);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/m2.txt`)), 'M');
  });

  void it('copy: the answer is dropped; the copy is reported done and both files exist', async () => {
    await c.uploadSmall(S, dir, 'c.txt', enc('C'));
    await drop('dropAfter', 'cp');
    await c.copy(S, `${dir}/c.txt`, `${dir}/c2.txt`, wait);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/c2.txt`)), 'C');
    assert.deepEqual(await names(), ['c.txt', 'c2.txt', 'm2.txt']);
  });

  void it('a job that then fails is reported as that failure (typed, from its log), not as a network error', async () => {
    await drop('dropAfter', 'mv');
    await assert.rejects(c.move(S, `${dir}/missing.txt`, `${dir}/never.txt`, wait), (e: unknown) => e instanceof ServerError && /failed/.test(e.message) && !(e instanceof UnavailableError));
    assert.ok(!(await names()).includes('never.txt'));
  });

  void it('the request never reached the handler: the network error stands and nothing moved', async () => {
    await c.uploadSmall(S, dir, 'k.txt', enc('K'));
    await drop('dropBefore', 'mv');
    await assert.rejects(c.move(S, `${dir}/k.txt`, `${dir}/k2.txt`, wait), (e: unknown) => e instanceof UnavailableError);
    const after = await names();
    assert.ok(after.includes('k.txt') && !after.includes('k2.txt'), after.join(','));
  });

  void it('two lost moves at once each find their own job', async () => {
    await c.uploadSmall(S, dir, 'p.txt', enc('P'));
    await c.uploadSmall(S, dir, 'q.txt', enc('Q'));
    await gateway.faults({ dropAfter: { next: 2, match: '^POST /v2/filesystem/[^/]+/transfer/mv$' } });
    await Promise.all([c.move(S, `${dir}/p.txt`, `${dir}/p2.txt`, wait), c.move(S, `${dir}/q.txt`, `${dir}/q2.txt`, wait)]);
    const after = await names();
    for (const n of ['p2.txt', 'q2.txt']) assert.ok(after.includes(n), after.join(','));
    assert.ok(!after.includes('p.txt') && !after.includes('q.txt'), after.join(','));
  });

  void it('a job array whose submission answer is lost is found and reported once, not submitted again (security review 3)', async () => {
    const into = `${dir}/submitted`;
    await c.mkdir(S, into);
    const mark = `lost-${Date.now()}`;
    const script = `#!/bin/bash\n#SBATCH --job-name=${mark}\n#SBATCH --array=0-3\n#SBATCH --time=00:02:00\n#SBATCH --output=/dev/null\necho "$SLURM_ARRAY_TASK_ID" > task-$SLURM_ARRAY_TASK_ID.txt\n`;
    await gateway.faults({ dropAfter: { next: 1, match: '^POST /v2/compute/[^/]+/jobs$' } });
    const id = await c.submitJob(S, { script, workingDirectory: into });
    assert.match(id, /^\d+$/);
    const mine = (await c.jobs(S)).filter((j) => j.name === mark);
    assert.deepEqual([...new Set(mine.map((j) => j.array?.jobId ?? j.id))], [id], 'one array, the one reported');
    await c.waitForJob(S, id, wait);
    assert.deepEqual((await c.list(S, into)).map((e) => e.name).sort(), ['task-0.txt', 'task-1.txt', 'task-2.txt', 'task-3.txt']);
  });

  void it('a submission that never reached the server is reported as failed, and nothing runs', async () => {
    const mark = `never-${Date.now()}`;
    await gateway.faults({ dropBefore: { next: 1, match: '^POST /v2/compute/[^/]+/jobs$' } });
    await assert.rejects(c.submitJob(S, { script: `#!/bin/bash\n#SBATCH --job-name=${mark}\ntrue\n`, workingDirectory: dir }), (e: unknown) => e instanceof UnavailableError);
    assert.deepEqual((await c.jobs(S)).filter((j) => j.name === mark), []);
  });
});
