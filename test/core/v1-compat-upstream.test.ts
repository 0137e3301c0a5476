/**
 * The client against the upstream v1 server's behaviour (issue 20), reproduced by the local
 * gateway's upstream compat mode: extract types with the dot only, accounting times without a
 * time of day, no reported version. Each case shows what upstream does and that the client copes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvalidInputError, type FirecrestClient, type V1Extras } from '../../src/core/index';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyFileArchive } from '../../src/core/emptyFile';
import { archiveOf } from '../../src/core/sync/archive';
import type { Manifest } from '../../src/core/sync/plan';
import { previewSync, runSync } from '../../src/core/sync/syncToCluster';
import { gatewayOnly } from '../support/target';
import { client, dec, gateway, scratchDir, t } from './support';

async function compat(mode: 'none' | 'upstream'): Promise<void> {
  const g = t.gateway;
  if (!g?.admin || !g.adminToken) throw new Error('no gateway admin API');
  const res = await fetch(`${g.admin}/compat`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ mode }) });
  assert.equal(res.status, 200, await res.text());
}

async function v1Form(path: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  const tok = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret }).toString() });
  const token = ((await tok.json()) as { access_token: string }).access_token;
  const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-machine-name': t.system, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, text: await res.text() };
}

const S = t.system;

void describe('upstream v1 behaviour (gateway compat mode)', { skip: gatewayOnly() || (t.apiVersion !== 'v1' ? 'runs with --api v1' : false) }, () => {
  let c: FirecrestClient;
  let dir = '';
  before(async () => {
    c = await client({}, { apiVersion: 'v1' });
    dir = await scratchDir(c, 'v1compat');
    await compat('upstream');
  });
  after(async () => {
    await compat('none');
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('extract: type tar.gz is "Unsupported file format" (as upstream, in every mode); the client sends .gz', async () => {
    await c.uploadSmall(S, dir, 'a.tar.gz', emptyFileArchive('inside.txt'));
    const bad = await v1Form('/utilities/extract', { sourcePath: `${dir}/a.tar.gz`, targetPath: dir, type: 'tar.gz' });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /Unsupported file format/);
    await c.extract(S, `${dir}/a.tar.gz`, dir);
    assert.ok((await c.list(S, dir)).some((e) => e.name === 'inside.txt'));
  });

  void it('accounting: upstream drops a time of day; the client sends whole days and cuts the rows to the window', async () => {
    const id = await c.submitJob(S, { name: 'v1-compat-acct', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:01:00\ntrue\n' });
    await c.waitForJob(S, id, { overallTimeoutMs: 120_000 });
    const start = Math.floor(Date.now() / 1000) - 3600;
    let rows = await c.accounting(S, { startTime: start });
    for (let i = 0; i < 30 && !rows.some((j) => j.id === id); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      rows = await c.accounting(S, { startTime: start });
    }
    assert.ok(rows.some((j) => j.id === id), 'the job of the last hour is listed');
    assert.ok(rows.every((j) => j.endTime === undefined || j.endTime <= 0 || j.endTime >= start), 'no job that ended before the window');
  });

  void it("reservations: upstream requires a node type; the client asks for one before sending", async () => {
    const when = (h: number) => new Date(Date.now() + h * 3600_000).toISOString().slice(0, 19);
    const raw = await v1Form('/reservations', { reservation: 'nonodetype', account: 'proj', numberOfNodes: '1', starttime: when(24), endtime: when(25) });
    assert.equal(raw.status, 400, raw.text);
    assert.match(raw.text, /'nodeType' form data input missing/);
    const x = c as FirecrestClient & V1Extras;
    await assert.rejects(x.reservationsCreate(S, 'nonodetype', 'proj', { numberOfNodes: 1, nodeType: '', starttime: when(24), endtime: when(25) }), (e: unknown) => e instanceof InvalidInputError && /'nodeType' is required/.test(e.message));
    // What the form proposes: the nodes' features.
    assert.ok((await c.nodes(S)).some((n) => n.features?.includes('f7t')), 'the node has the f7t feature');
  });

  void it("a job looked up just after it ended: sacct's placeholder name 'allocation' is not taken over the name the client knows", async () => {
    // slurmdbd's lag (the placeholder's life) is 3-4 s upstream; here 60 s, so that a loaded
    // machine, slow to see the job end, still looks within it (CI: a look after 4 s saw the name).
    await gateway.settings({ accountingLagSeconds: 60 });
    try {
      const id = await c.submitJob(S, { name: 'v1-named-job', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:01:00\ntrue\n' });
      const done = await c.waitForJob(S, id, { overallTimeoutMs: 120_000 });
      assert.equal(done.name, 'v1-named-job');
      // A client that never saw the job gets what the server says: the placeholder, for a while.
      const stranger = await client({}, { apiVersion: 'v1' });
      try {
        assert.deepEqual((await stranger.accounting(S, { jobIds: [id] })).map((j) => j.name), ['allocation'], 'upstream names a just-ended job allocation');
      } finally {
        await stranger.dispose();
      }
      assert.deepEqual((await c.accounting(S, { jobIds: [id] })).map((j) => j.name), ['v1-named-job']);
    } finally {
      await gateway.settings({ accountingLagSeconds: 0 });
    }
  });

  void it('sync: upstream refuses an archive member stamped later than its clock; the client stamps such files no later than the server\'s time', async () => {
    const work = mkdtempSync(join(tmpdir(), 'f7t-v1-mtime-'));
    try {
      const project = join(work, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'ahead.txt'), 'saved on a laptop whose clock runs ahead\n');
      const ahead = new Date(Date.now() + 30_000);
      utimesSync(join(project, 'ahead.txt'), ahead, ahead);
      // What upstream does with such an archive, sent as it is.
      await c.uploadSmall(S, dir, 'ahead.tar.gz', await archiveOf(project, [{ rel: 'ahead.txt', kind: 'file', size: 41, mtimeMs: ahead.getTime(), executable: false }]));
      await assert.rejects(c.extract(S, `${dir}/ahead.tar.gz`, dir), /in the future/);
      // Sync to Cluster.
      let saved: Manifest | undefined;
      const store = { load: async () => saved, save: async (m: Manifest) => { saved = m; } };
      const target = { system: S, remoteRoot: `${dir}/synced`, localRoot: project };
      const directLimit = (await c.systems()).find((x) => x.name === S)?.maxDirectTransferSize ?? 0;
      const result = await runSync(c, await previewSync(c, target, { store, directLimit }), { store, directLimit });
      assert.deepEqual(result.sent, ['ahead.txt']);
      assert.equal(dec(await c.downloadSmall(S, `${dir}/synced/ahead.txt`)), 'saved on a laptop whose clock runs ahead\n');
      assert.ok((await c.stat(S, `${dir}/synced/ahead.txt`)).mtime * 1000 <= Date.now() + 1000, 'stamped no later than the server\'s time');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  void it('a server that reports no version: no version is guessed, and the 1.16 routes are probed', async () => {
    const fresh = await client({}, { apiVersion: 'v1' });
    try {
      assert.equal(await fresh.serverVersion(), undefined);
      assert.ok((await fresh.partitions(S)).length > 0, 'partitions (1.16) work after the probe');
    } finally {
      await fresh.dispose();
    }
  });
});
