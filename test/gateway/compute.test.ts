/** v2 compute routes (§3.3): real jobs on the gateway's scheduler (or a real deployment's). */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { api, gw, sleep, t, token, type Json } from './support';
import { scratchDir } from './support-fs';

const jobs = `/compute/${t.system}/jobs`;
const FINAL = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE)/;

async function waitForState(id: string, want: RegExp, timeoutMs = 90_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let last: Json;
  while (Date.now() < until) {
    const r = await api(`${jobs}/${id}`);
    if (r.status === 200) {
      last = r.body.jobs[0];
      if (want.test(String(last.status.state))) return last;
    }
    await sleep(500);
  }
  throw new Error(`job ${id} did not reach ${want} (last state ${JSON.stringify(last?.status)})`);
}

async function submit(job: Record<string, unknown>, auth?: string): Promise<{ status: number; body: Json; text: string }> {
  return api(jobs, { method: 'POST', json: { job }, auth });
}

void describe('compute routes', () => {
  let wd = '';
  const mark = randomBytes(6).toString('hex');

  let removeScratch = async (): Promise<void> => undefined;

  before(async () => {
    // Scripts, outputs and Slurm's own slurm-<id>.out files stay inside this suite's folder.
    ({ path: wd, remove: removeScratch } = await scratchDir('compute'));
  });
  after(() => removeScratch());

  void it('submits a job that writes a file, which reads back; list, get and metadata show it', async () => {
    const out = `${wd}/f7t-compute-${mark}.txt`;
    const script = `#!/bin/bash\n#SBATCH --time=00:02:00\necho "hello $MARK" > ${out}\n`;
    const r = await submit({ name: `F7t-Mixed-${mark}`, working_directory: wd, script, environment: [`MARK=${mark}`], standardOutput: `${wd}/f7t-compute-${mark}.log` });
    assert.equal(r.status, 201, r.text);
    assert.equal(typeof r.body.jobId, 'string');
    const id = r.body.jobId as string;
    const job = await waitForState(id, FINAL);
    assert.match(job.status.state, /^COMPLETED/);
    assert.equal(job.jobId, id);
    assert.equal(job.name, `F7t-Mixed-${mark}`);
    assert.equal(job.workingDirectory, wd);
    const view = await api(`/filesystem/${t.system}/ops/view`, { query: { path: out } });
    assert.equal(view.status, 200, view.text);
    assert.equal(view.body.output, `hello ${mark}\n`);

    // The path is case-insensitive; the query (a mixed-case job name) is passed as it is.
    const list = await api(`/COMPUTE/${t.system.toUpperCase()}/Jobs`, { query: { name: `F7t-Mixed-${mark}` } });
    assert.equal(list.status, 200, list.text);
    assert.ok((list.body.jobs ?? []).some((j: Json) => j.jobId === id), 'listed by name');
    const all = await api(jobs, { query: { allusers: 'true', time_window: '1h', account: '' } });
    assert.equal(all.status, 200, all.text);
    assert.ok((all.body.jobs ?? []).some((j: Json) => j.jobId === id), 'listed with allusers');

    const meta = await api(`${jobs}/${id}/metadata`);
    assert.equal(meta.status, 200, meta.text);
    assert.equal(meta.body.jobs[0].jobId, id);
    assert.match(String(meta.body.jobs[0].script), /hello \$MARK/);
    assert.equal(meta.body.jobs[0].standardOutput, `${wd}/f7t-compute-${mark}.log`);
  });

  void it('cancels a running job, which ends CANCELLED', async () => {
    const r = await submit({ name: `f7t-sleep-${mark}`, workingDirectory: wd, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 300\n' });
    assert.equal(r.status, 201, r.text);
    const id = r.body.jobId as string;
    await waitForState(id, /^(RUNNING|PENDING)/);
    const del = await api(`${jobs}/${id}`, { method: 'DELETE' });
    assert.equal(del.status, 204, del.text);
    const job = await waitForState(id, FINAL, 30_000);
    assert.match(job.status.state, /^CANCELLED/);
  });

  void it('validates the job description', async () => {
    const missing = await submit({ script: '#!/bin/bash\ntrue\n' });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.body.errorType, 'validation');
    assert.equal(missing.body.data.fields[0].location, 'body');
    const badEnv = await submit({ workingDirectory: wd, script: '#!/bin/bash\ntrue\n', env: { N: 4 } });
    assert.equal(badEnv.status, 400, badEnv.text);
    assert.equal(badEnv.body.errorType, 'validation');
    const nullScript = await submit({ workingDirectory: wd, script: null });
    assert.equal(nullScript.status, 400, nullScript.text);
  });

  void it('rejects malformed job ids with 400 and unknown ones with 404', async () => {
    const bad = await api(`${jobs}/12_3`);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.errorType, 'validation');
    const unknown = await api(`${jobs}/987654321`);
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.message, 'Job not found.');
    const meta = await api(`${jobs}/987654321/metadata`);
    assert.equal(meta.status, 404, meta.text);
    const del = await api(`${jobs}/987654321`, { method: 'DELETE' });
    assert.equal(del.status, 404, del.text);
    assert.match(del.body.message, /Job not found/);
    const window = await api(jobs, { query: { time_window: '2w' } });
    assert.equal(window.status, 400, window.text);
  });

  void it('runs a command inside a running job (attach)', async () => {
    const r = await submit({ name: `f7t-attach-${mark}`, workingDirectory: wd, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n' });
    assert.equal(r.status, 201, r.text);
    const id = r.body.jobId as string;
    try {
      await waitForState(id, /^RUNNING/);
      const out = `${wd}/f7t-attach-${mark}.txt`;
      const a = await api(`${jobs}/${id}/attach`, { method: 'PUT', json: { command: `echo attached > ${out}` } });
      assert.equal(a.status, 204, a.text);
      const view = await api(`/filesystem/${t.system}/ops/view`, { query: { path: out } });
      assert.equal(view.body.output, 'attached\n');
    } finally {
      await api(`${jobs}/${id}`, { method: 'DELETE' });
    }
  });

  void it("bob cannot cancel alice's job", { skip: gatewayOnly() }, async (ctx) => {
    const bob = gw().clients?.find((c) => c.user !== gw().user);
    if (!bob) return ctx.skip('all clients map to one unix user (gateway not running as root)');
    const r = await submit({ name: `f7t-owned-${mark}`, workingDirectory: wd, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n' });
    assert.equal(r.status, 201, r.text);
    const id = r.body.jobId as string;
    try {
      const bobToken = await token(bob.clientId, bob.clientSecret);
      const del = await api(`${jobs}/${id}`, { method: 'DELETE', auth: `Bearer ${bobToken}` });
      assert.ok(del.status === 403 || del.status === 500, `status ${del.status}: ${del.text}`);
      assert.equal(del.body.user, bob.user);
      const still = await api(`${jobs}/${id}`);
      assert.doesNotMatch(still.body.jobs[0].status.state, /^CANCELLED/);
    } finally {
      await api(`${jobs}/${id}`, { method: 'DELETE' });
    }
  });
});
