import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NotFoundError, TimeoutError, type FirecrestClient, type Progress } from '../../src/core/index';
import { client, dec, scratchDir, t } from './support';

void describe('compute routes', () => {
  let c: FirecrestClient;
  let dir: string;
  const S = t.system;
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'jobs');
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('submit, wait (with progress), inspect, metadata, list, accounting', async () => {
    const id = await c.submitJob(S, {
      name: 'core-hello',
      workingDirectory: dir,
      script: '#!/bin/bash\n#SBATCH --time=00:02:00\necho "hello $GREETING"\n',
      env: { GREETING: 'world' },
      stdoutPath: `${dir}/hello.out`,
    });
    assert.match(id, /^\w+$/);
    const seen: Progress[] = [];
    const done = await c.waitForJob(S, id, { overallTimeoutMs: 120_000, onProgress: (p) => seen.push(p) });
    assert.equal(done.id, id);
    assert.equal(done.isFinal, true);
    assert.equal(done.stateClass, 'completed', done.state);
    assert.ok(seen.length > 0);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/hello.out`)).trim(), 'hello world');
    const j = await c.job(S, id);
    assert.equal(j.name, 'core-hello');
    const md = await c.jobMetadata(S, id);
    assert.equal(md.id, id);
    assert.match(md.script ?? '', /echo "hello/);
    const listed = await c.jobs(S);
    assert.ok(listed.some((x) => x.id === id), 'listed');
    const acct = await c.accounting(S, { jobIds: [id] });
    assert.deepEqual(acct.map((x) => x.id), [id]);
    assert.deepEqual(await c.accounting(S, { jobIds: [id], startTime: Math.floor(Date.now() / 1000) + 3600 }), []);
  });

  // The built-in scheduler makes no start estimates (and takes no --begin); Slurm and the real servers do.
  void it('a pending job reports when Slurm expects it to start, never a start', { skip: t.gateway?.scheduler === 'local' ? 'needs Slurm: the built-in scheduler makes no start estimates' : false }, async () => {
    const begin = Math.floor(Date.now() / 1000) + 3600;
    const id = await c.submitJob(S, { name: 'core-begin', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --begin=now+1hour\n#SBATCH --time=00:01:00\ntrue\n' });
    try {
      let j = await c.job(S, id);
      for (let i = 0; i < 60 && !j.expectedStartTime; i++) {
        await new Promise((r) => setTimeout(r, 500));
        j = await c.job(S, id);
      }
      assert.equal(j.stateClass, 'pending', j.state);
      assert.equal(j.startTime, undefined, 'not started');
      assert.ok(j.expectedStartTime && Math.abs(j.expectedStartTime - begin) < 300, `expected start ${j.expectedStartTime}, begin ${begin}`);
    } finally {
      await c.cancelJob(S, id).catch(() => undefined);
    }
  });

  void it('a script already on the cluster runs after another job: sent inline with the dependency, from its own folder', async () => {
    const first = await c.submitJob(S, { name: 'core-dep-first', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:02:00\nsleep 2\n' });
    await c.mkdir(S, `${dir}/scripts`);
    await c.uploadSmall(S, `${dir}/scripts`, 'then.sh', new TextEncoder().encode('#!/bin/bash\n#SBATCH --time=00:01:00\n#SBATCH --job-name=core-dep-then\necho "ran in $PWD"\n'));
    const then = await c.submitJob(S, { scriptPath: `${dir}/scripts/then.sh`, workingDirectory: '', dependency: `afterok:${first}` });
    const md = await c.jobMetadata(S, then);
    assert.match(md.script ?? '', new RegExp(`#SBATCH --dependency=afterok:${first}`));
    const done = await c.waitForJob(S, then, { overallTimeoutMs: 180_000 });
    assert.equal(done.stateClass, 'completed', done.state);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/scripts/slurm-${then}.out`)), `ran in ${dir}/scripts\n`);
  });

  void it('cancel a running job; attach runs inside its allocation', async () => {
    const id = await c.submitJob(S, { name: 'core-sleep', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n' });
    for (let i = 0; i < 100; i++) {
      const j = await c.job(S, id).catch((e: unknown) => {
        if (e instanceof NotFoundError) return undefined;
        throw e;
      });
      if (j?.stateClass === 'running') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    await c.attachToJob(S, id, `touch ${dir}/attached`);
    await c.cancelJob(S, id);
    const end = await c.waitForJob(S, id, { overallTimeoutMs: 60_000 });
    assert.equal(end.stateClass, 'cancelled', end.state);
    const names = (await c.list(S, dir)).map((e) => e.name);
    assert.ok(names.includes('attached'), names.join(','));
  });

  void it('waitForJob with an overall timeout cancels the job and throws TimeoutError', async () => {
    const id = await c.submitJob(S, { name: 'core-long', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 300\n' });
    await assert.rejects(c.waitForJob(S, id, { overallTimeoutMs: 1500 }), TimeoutError);
    const end = await c.waitForJob(S, id, { overallTimeoutMs: 60_000 });
    assert.equal(end.stateClass, 'cancelled', end.state);
  });

  void it('waitForJob is abortable', async () => {
    const id = await c.submitJob(S, { name: 'core-abort', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 300\n' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 800);
    await assert.rejects(c.waitForJob(S, id, { signal: ac.signal }), (e: unknown) => (e as Error).name === 'CancelledError');
    await c.cancelJob(S, id);
  });

  void it('an unknown job is NotFoundError (job, metadata, cancel); waitForJob gives up after not_found_timeout', async () => {
    await assert.rejects(c.job(S, '999999'), (e: unknown) => e instanceof NotFoundError && e.route === 'GET /compute/{system}/jobs/{jobId}');
    await assert.rejects(c.jobMetadata(S, '999999'), NotFoundError);
    await assert.rejects(c.cancelJob(S, '999999'), NotFoundError);
    const started = Date.now();
    await assert.rejects(c.waitForJob(S, '999999', { notFoundTimeoutMs: 1000 }), NotFoundError);
    assert.ok(Date.now() - started >= 1000);
  });
});
