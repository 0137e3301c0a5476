import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { NotFoundError, ServerError, type FirecrestClient } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, dec, enc, gateway, scratchDir, t } from './support';

void describe('transfer routes (job-backed) and the ops fallbacks', () => {
  let c: FirecrestClient;
  let dir: string;
  const S = t.system;
  const wait = { overallTimeoutMs: 120_000 };
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'xfer');
  });
  afterEach(async () => {
    if (!gatewayOnly()) await gateway.clearFaults();
  });
  after(async () => {
    await c.remove(S, dir, wait).catch(() => undefined);
    await c.dispose();
  });

  void it('copy and move wait for the job and verify its log', async () => {
    await c.uploadSmall(S, dir, 'a.txt', enc('A'));
    const job = await c.copy(S, `${dir}/a.txt`, `${dir}/b.txt`, wait);
    assert.ok(job?.jobId);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/b.txt`)), 'A');
    // Verified: the job's two log files are gone from the user's folder.
    assert.ok(job.outputLog && job.errorLog, 'the server named its logs');
    for (const log of [job.outputLog, job.errorLog]) await assert.rejects(c.stat(S, log), NotFoundError, `${log} removed`);
    await c.move(S, `${dir}/b.txt`, `${dir}/c.txt`, wait);
    const names = (await c.list(S, dir)).map((e) => e.name);
    assert.ok(names.includes('c.txt') && !names.includes('b.txt'), names.join(','));
  });

  void it('wait: false returns the job at once; waitForTransferJob finishes it', async () => {
    await c.uploadSmall(S, dir, 'n.txt', enc('N'));
    const job = await c.copy(S, `${dir}/n.txt`, `${dir}/n2.txt`, { wait: false });
    assert.ok(job?.jobId && job.outputLog && job.system);
    await c.waitForTransferJob(job, wait);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/n2.txt`)), 'N');
  });

  void it('a failing transfer job is an error carrying its error log; its logs stay, to be read', async () => {
    await assert.rejects(c.copy(S, `${dir}/missing.txt`, `${dir}/x.txt`, wait), (e: unknown) => e instanceof ServerError && /failed/.test(e.message) && /missing\.txt/.test(e.causedBy?.join('\n') ?? ''));
    const job = await c.copy(S, `${dir}/missing2.txt`, `${dir}/y.txt`, { wait: false });
    await assert.rejects(c.waitForTransferJob(job!, wait), ServerError);
    for (const log of [job!.outputLog!, job!.errorLog!]) {
      assert.ok((await c.stat(S, log)).mode & 0o100000, `${log} kept`);
      await c.remove(S, log);
    }
  });

  void it('rm falls back to transfer/rm on 408', { skip: gatewayOnly() }, async () => {
    await c.mkdir(S, `${dir}/rmme/sub`, { parents: true });
    await gateway.faults({ error: { next: 1, statuses: [408], match: 'DELETE .*/ops/rm$', message: 'Command execution timeout limit exceeded.' } });
    await c.remove(S, `${dir}/rmme`, wait);
    assert.ok(!(await c.list(S, dir)).some((e) => e.name === 'rmme'));
  });

  void it('rm falls back on 500 "exit status:124" too', { skip: gatewayOnly() }, async () => {
    await c.mkdir(S, `${dir}/rm124`, { parents: true });
    await gateway.faults({ error: { next: 1, statuses: [500], match: 'DELETE .*/ops/rm$', message: 'Remote process failed with exit status:124 and error message:' } });
    await c.remove(S, `${dir}/rm124`, wait);
    assert.ok(!(await c.list(S, dir)).some((e) => e.name === 'rm124'));
  });

  void it('compress and extract fall back to the transfer routes on 408', { skip: gatewayOnly() }, async () => {
    await c.mkdir(S, `${dir}/csrc`, { parents: true });
    await c.uploadSmall(S, `${dir}/csrc`, 'z.txt', enc('zipped'));
    await gateway.faults({ error: { next: 2, statuses: [408], match: 'POST .*/ops/(compress|extract)$', message: 'Command execution timeout limit exceeded.' } });
    const cj = await c.compress(S, `${dir}/csrc`, `${dir}/c.tar.gz`, wait);
    assert.ok(cj?.jobId, 'went through a transfer job');
    await c.mkdir(S, `${dir}/cout`);
    const ej = await c.extract(S, `${dir}/c.tar.gz`, `${dir}/cout`, wait);
    assert.ok(ej?.jobId, 'went through a transfer job');
    assert.equal(dec(await c.downloadSmall(S, `${dir}/cout/csrc/z.txt`)), 'zipped');
  });
});
