/**
 * v2 filesystem transfer routes: each call submits a scheduler job; the suite waits for it like the
 * clients do (404 tolerated right after submission), then checks the job's log and the effect on disk.
 * Also checks the generated job scripts with hostile names by running them through bash.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../gateway/src/http/errors';
import { formatDirectives, transferScript } from '../../gateway/src/fs/transfer-script';
import { gatewayOnly } from '../support/target';
import { sleep, workDir, type Reply } from './support';
import { download, ops, scratchDir, transfer, upload, viewText, waitForJob, type WireFile } from './support-fs';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const MARK = `pwned-${randomUUID().slice(0, 8)}`;
const HOSTILE = ['; rm -rf ~', '-rf', `$(touch ${MARK})`, '`id`', "it's \"quoted\"", 'new\nline', 'tab\there', 'emoji 😀 ünï', '*', '~'];

interface TransferJob {
  jobId: string;
  system: string;
  workingDirectory: string;
  logs: { outputLog: string; errorLog: string };
}

/** Checks the TransferJob shape and waits for the job; returns its final state and logs. */
async function finish(r: Reply, status = 201): Promise<{ state: string; out: string; err: string; job: TransferJob }> {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(Object.keys(r.body), ['transferJob']);
  const job = r.body.transferJob as TransferJob;
  assert.equal(typeof job.jobId, 'string');
  const wd = await workDir();
  assert.equal(job.workingDirectory, wd);
  assert.match(job.logs.outputLog, new RegExp(`^${wd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.f7t_file_handling_job_[0-9a-f-]{36}\\.log$`));
  assert.equal(job.logs.errorLog, job.logs.outputLog.replace('.f7t_file_handling_job_', '.f7t_file_handling_job_error_'));
  const state = await waitForJob(job.jobId);
  const out = await viewText(job.logs.outputLog);
  const err = await viewText(job.logs.errorLog);
  // The logs belong to the test: remove them so the home directory stays clean.
  await ops('rm', { method: 'DELETE', query: { path: job.logs.outputLog } });
  await ops('rm', { method: 'DELETE', query: { path: job.logs.errorLog } });
  return { state, out, err, job };
}

async function names(path: string): Promise<string[]> {
  const r = await ops('ls', { query: { path, showHidden: 'true' } });
  assert.equal(r.status, 200, r.text);
  return (r.body.output as WireFile[]).map((f) => f.name).sort();
}

before(async () => {
  ({ path: dir, remove: cleanup } = await scratchDir('transfer'));
});
after(async () => cleanup());

void describe('transfer jobs', () => {
  void it('mv moves and says so in its log', async () => {
    await upload(dir, 'moving.txt', enc('on the move'));
    const r = await transfer('mv', { method: 'POST', json: { sourcePath: `${dir}/moving.txt`, targetPath: `${dir}/moved.txt` } });
    const { state, out } = await finish(r);
    assert.equal(state, 'COMPLETED');
    assert.ok(out.includes('Files were successfully moved.'), out);
    assert.equal((await download(`${dir}/moved.txt`)).bytes.toString(), 'on the move');
    assert.equal((await ops('stat', { query: { path: `${dir}/moving.txt` } })).status, 404);
  });

  void it('cp copies directories recursively, following links with dereference', async () => {
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/tree/inner`, parent: true } });
    await upload(`${dir}/tree/inner`, 'leaf.txt', enc('leaf'));
    await ops('symlink', { method: 'POST', json: { path: `${dir}/tree/inner/leaf.txt`, linkPath: `${dir}/tree/link` } });
    const plain = await finish(await transfer('cp', { method: 'POST', json: { source_path: `${dir}/tree`, target_path: `${dir}/copy`, dereference: false } }));
    assert.equal(plain.state, 'COMPLETED');
    assert.ok(plain.out.includes('Files were successfully copied.'), plain.out);
    assert.equal((await download(`${dir}/copy/inner/leaf.txt`)).bytes.toString(), 'leaf');
    const link = (await ops('ls', { query: { path: `${dir}/copy/link` } })).body.output[0] as WireFile;
    assert.equal(link.type, 'l');

    const deref = await finish(await transfer('cp', { method: 'POST', json: { sourcePath: `${dir}/tree`, targetPath: `${dir}/copy-deref`, dereference: true } }));
    assert.equal(deref.state, 'COMPLETED');
    const real = (await ops('ls', { query: { path: `${dir}/copy-deref/link` } })).body.output[0] as WireFile;
    assert.deepEqual([real.type, real.size], ['-', '4']);
  });

  void it('rm deletes (answering 200) and says so', async () => {
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/doomed/a/b`, parent: true } });
    const { state, out } = await finish(await transfer('rm', { method: 'DELETE', query: { path: `${dir}/doomed` } }), 200);
    assert.equal(state, 'COMPLETED');
    assert.ok(out.includes('Files were successfully deleted.'), out);
    assert.equal((await ops('ls', { query: { path: `${dir}/doomed` } })).status, 404);
  });

  void it('compress then extract round-trips a directory; matchPattern selects files', async () => {
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/pack/sub`, parent: true } });
    await upload(`${dir}/pack/sub`, 'keep.dat', enc('kept'));
    await upload(`${dir}/pack`, 'skip.txt', enc('skipped'));
    const c = await finish(await transfer('compress', { method: 'POST', json: { source_path: `${dir}/pack`, target_path: `${dir}/pack.tar.bz2`, compression: 'bzip2', dereference: false } }));
    assert.equal(c.state, 'COMPLETED');
    assert.ok(c.out.includes('Files were successfully compressed.'), c.out);
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/unpacked` } });
    const x = await finish(await transfer('extract', { method: 'POST', json: { sourcePath: `${dir}/pack.tar.bz2`, targetPath: `${dir}/unpacked`, compression: 'bzip2' } }));
    assert.equal(x.state, 'COMPLETED');
    assert.ok(x.out.includes('Files were successfully extracted.'), x.out);
    assert.equal((await download(`${dir}/unpacked/pack/sub/keep.dat`)).bytes.toString(), 'kept');

    const m = await finish(await transfer('compress', { method: 'POST', json: { sourcePath: `${dir}/pack`, targetPath: `${dir}/match.tar.gz`, matchPattern: '.*\\.dat' } }));
    assert.equal(m.state, 'COMPLETED');
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/matched` } });
    assert.equal((await ops('extract', { method: 'POST', json: { path: `${dir}/match.tar.gz`, targetPath: `${dir}/matched` } })).status, 204);
    assert.equal((await download(`${dir}/matched/pack/sub/keep.dat`)).bytes.toString(), 'kept');
    assert.equal((await ops('stat', { query: { path: `${dir}/matched/pack/skip.txt` } })).status, 404);
  });

  void it('a failing cp ends FAILED with the error in its error log', async () => {
    const r = await transfer('cp', { method: 'POST', json: { sourcePath: `${dir}/does-not-exist`, targetPath: `${dir}/never` } });
    const { state, out, err } = await finish(r);
    assert.equal(state, 'FAILED');
    assert.ok(!out.includes('successfully'), out);
    assert.ok(err.includes('No such file or directory'), err);
    assert.equal((await ops('stat', { query: { path: `${dir}/never` } })).status, 404);
  });

  void it('hostile names are only names inside the job script', async () => {
    const src = `${dir}/hostile-src`;
    await ops('mkdir', { method: 'POST', json: { path: src } });
    for (const name of HOSTILE) assert.equal((await ops('mkdir', { method: 'POST', json: { path: `${src}/${name}` } })).status, 201);
    const target = `${dir}/hostile copy; $(touch ${MARK}) 'q'`;
    const { state } = await finish(await transfer('cp', { method: 'POST', json: { sourcePath: src, targetPath: target } }));
    assert.equal(state, 'COMPLETED');
    assert.deepEqual(await names(target), [...HOSTILE].sort());
    // Unquoted, `$(touch ...)` would have created MARK in the job's working directory.
    // Looked up by name: a listing of the home folder can fail while other suites' transfer jobs
    // remove their logs there (as `ls` on the real server does).
    for (const where of [await workDir(), dir]) assert.equal((await ops('stat', { query: { path: `${where}/${MARK}` } })).status, 404);
    const gone = await finish(await transfer('rm', { method: 'DELETE', query: { path: `${target}/-rf` } }), 200);
    assert.equal(gone.state, 'COMPLETED');
    assert.deepEqual(await names(target), HOSTILE.filter((n) => n !== '-rf').sort());
  });
});

void describe('transfer: refusals', () => {
  void it('relative or missing paths are 400', async () => {
    assert.equal((await transfer('mv', { method: 'POST', json: { sourcePath: 'rel', targetPath: `${dir}/x` } })).status, 400);
    const missing = await transfer('cp', { method: 'POST', json: { sourcePath: `${dir}/x` } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errorType, 'validation');
    assert.equal(missing.body.data.fields[0].name, 'targetPath');
    assert.equal((await transfer('rm', { method: 'DELETE' })).status, 400);
  });
});

void describe('transfer job scripts (generated text, run through bash)', () => {
  void it('quote every hostile word so the command receives it unchanged', () => {
    const words = [...HOSTILE, '', ' ', "'", "''", '\\', '"$HOME"', '$((1+1))', '!!', 'a\nb\r\nc', 'A=1', '{a,b}', '#', '&&', '>out'];
    const script = transferScript('copy', ['#SBATCH --partition=xfer'], ['printf', '%s\\0', ...words]);
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', cwd: '/tmp' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, words.map((w) => `${w}\0`).join('') + 'Files were successfully copied.\n');
  });

  void it('a failing command exits non-zero, its error and a summary on stderr', () => {
    const r = spawnSync('bash', ['-c', transferScript('move', [], ['mv', '--', `/nonexistent-${randomUUID()}`, '/tmp/x'])], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /No such file or directory[\s\S]*Unable to move files/);
  });

  void it('fill {account} into the directives, and require it when they need it', () => {
    assert.deepEqual(formatDirectives(['#SBATCH --account={account}', '#SBATCH -p xfer'], 'proj'), ['#SBATCH --account=proj', '#SBATCH -p xfer']);
    assert.deepEqual(formatDirectives(['#SBATCH -p xfer'], undefined), ['#SBATCH -p xfer']);
    assert.throws(() => formatDirectives(['#SBATCH --account={account}'], undefined), (e: unknown) => e instanceof ApiError && e.status === 400 && e.message === 'Account parameter is required on this system.');
    assert.throws(() => formatDirectives(['#SBATCH --account={account}'], 'proj\n#SBATCH --uid=0'), (e: unknown) => e instanceof ApiError && e.status === 400);
  });
});

/** A second local gateway with its own configuration (for settings the shared one does not have). */
async function ownGateway(config: object): Promise<{ v2: string; token: string; stop: () => Promise<void> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'f7t-gw-transfer-'));
  const file = join(stateDir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const gw = spawn(process.execPath, [resolve('dist/gateway.js'), '--host', '127.0.0.1', '--port', '0', '--scheduler', 'local', '--state-dir', stateDir, '--config', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = async (): Promise<void> => {
    if (gw.exitCode === null) {
      gw.kill('SIGTERM');
      await new Promise((r) => gw.once('exit', r));
    }
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const line = await new Promise<string>((ok, fail) => {
      createInterface({ input: gw.stdout }).once('line', ok);
      gw.once('exit', (code) => fail(new Error(`gateway exited (${code})`)));
    });
    gw.stdout.resume();
    const info = JSON.parse(line);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret });
    const res = await fetch(info.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    const body = (await res.json()) as { access_token: string };
    return { v2: info.v2 as string, token: body.access_token, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

void describe('transfer: directives that need an account', { skip: gatewayOnly() }, () => {
  void it('400 without an account; with one, the job runs under it', async () => {
    const own = await ownGateway({ systems: [{ name: 'acctcluster', transferDirectives: ['#SBATCH --account={account}', '#SBATCH --partition=xfer'] }] });
    try {
      const call = async (method: string, path: string, json?: unknown): Promise<Pick<Reply, 'status' | 'body'>> => {
        const headers: Record<string, string> = { authorization: `Bearer ${own.token}` };
        if (json !== undefined) headers['content-type'] = 'application/json';
        const res = await fetch(`${own.v2}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
        return { status: res.status, body: await res.json().catch(() => undefined) };
      };
      await upload(dir, 'acct.txt', enc('charged'));
      const base = '/filesystem/acctcluster/transfer';
      const refused = await call('POST', `${base}/cp`, { sourcePath: `${dir}/acct.txt`, targetPath: `${dir}/acct-copy.txt` });
      assert.deepEqual([refused.status, refused.body.message], [400, 'Account parameter is required on this system.']);
      const rm = await call('DELETE', `${base}/rm?${new URLSearchParams({ path: `${dir}/acct.txt`, account: '' }).toString()}`);
      assert.equal(rm.status, 400);

      const ok = await call('POST', `${base}/cp`, { sourcePath: `${dir}/acct.txt`, targetPath: `${dir}/acct-copy.txt`, account: 'proj' });
      assert.equal(ok.status, 201);
      const jobId = ok.body.transferJob.jobId as string;
      let job: { status: { state: string }; account: string | null } | undefined;
      for (let i = 0; i < 100; i++) {
        const r = await call('GET', `/compute/acctcluster/jobs/${jobId}`);
        job = r.status === 200 ? r.body.jobs[0] : undefined;
        const state = job?.status.state ?? '';
        if (['COMPLETED', 'FAILED', 'CANCELLED'].some((f) => state.startsWith(f))) break;
        await sleep(200);
      }
      assert.equal(job?.status.state, 'COMPLETED');
      assert.equal(job?.account, 'proj');
      assert.equal((await download(`${dir}/acct-copy.txt`)).bytes.toString(), 'charged');
      for (const log of [ok.body.transferJob.logs.outputLog, ok.body.transferJob.logs.errorLog]) {
        await ops('rm', { method: 'DELETE', query: { path: log as string } });
      }
    } finally {
      await own.stop();
    }
  });
});
