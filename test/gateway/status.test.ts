/** v2 status routes (§3.2) and the cross-cutting routing rules (§3.1) over real HTTP. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, isErrorBody, t, type Json } from './support';

const sys = `/status/${t.system}`;

void describe('status routes', () => {
  void it('GET /status/systems gives the full System object with probed health', async () => {
    const r = await api('/status/systems');
    assert.equal(r.status, 200, r.text);
    assert.ok(r.headers.get('f7t-appversion'));
    assert.ok(Number(r.headers.get('f7t-timestamp')) > 1e9);
    assert.equal(r.headers.get('f7t-authusername'), null, 'successful answers carry no F7T-AuthUsername');
    const s = (r.body.systems as Json[]).find((x) => x.name === t.system);
    assert.ok(s, `system ${t.system} listed`);
    for (const k of ['name', 'ssh', 'scheduler', 'servicesHealth', 'probing', 'lastHealthCheck', 'fileSystems', 'dataOperation']) assert.ok(k in s, k);
    assert.equal(typeof s.ssh.timeout.commandExecution, 'number');
    assert.ok(['slurm', 'pbs'].includes(s.scheduler.type));
    assert.equal(s.fileSystems.filter((f: Json) => f.defaultWorkDir === true).length, 1);
    for (const f of s.fileSystems) assert.ok(['users', 'store', 'archive', 'apps', 'scratch', 'project'].includes(f.dataType));
    assert.equal(typeof s.dataOperation.max_ops_file_size, 'number');
    assert.ok(Array.isArray(s.dataOperation.datatransfer_jobs_directives));
    if (s.servicesHealth) {
      for (const h of s.servicesHealth) {
        assert.ok(['ssh', 'scheduler', 'filesystem', 's3', 'exception'].includes(h.serviceType));
        assert.equal(typeof h.healthy, 'boolean');
        assert.equal(typeof h.latency, 'number');
        assert.match(h.lastChecked, /^\d{4}-\d\d-\d\dT/);
        if (h.serviceType === 'filesystem') assert.equal(typeof h.path, 'string');
      }
    }
    if (t.gateway) {
      assert.equal(s.dataOperation.data_transfer.serviceType, 's3');
      assert.ok(String(s.dataOperation.data_transfer.publicUrl).endsWith('/s3'));
      const ssh = s.servicesHealth.find((h: Json) => h.serviceType === 'ssh');
      assert.equal(ssh.healthy, true);
      for (const f of s.fileSystems) assert.ok(s.servicesHealth.some((h: Json) => h.serviceType === 'filesystem' && h.path === f.path), `probe of ${f.path}`);
    }
  });

  void it('liveness answers without a token, and redirects without the trailing slash', async () => {
    const r = await api('/status/liveness/', { auth: null });
    assert.equal(r.status, 200, r.text);
    assert.equal(typeof r.body.lastUpdate, 'number');
    assert.equal(typeof r.body.healthcheckRuns, 'object');
    assert.ok(r.headers.get('f7t-appversion'));
    const redirect = await api('/status/liveness', { auth: null, redirect: 'manual' });
    assert.equal(redirect.status, 307);
    assert.match(redirect.headers.get('location') ?? '', /\/status\/liveness\/$/);
  });

  void it('serves /openapi.json without a token, with the server version', async () => {
    const r = await api('/openapi.json', { auth: null });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.info.version, r.headers.get('f7t-appversion'));
    assert.ok('/status/systems' in r.body.paths);
  });

  void it('nodes', async () => {
    const r = await api(`${sys}/nodes`);
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.nodes.length > 0);
    for (const n of r.body.nodes) {
      assert.equal(typeof n.name, 'string');
      assert.equal(typeof n.cpus, 'number');
      assert.ok(Array.isArray(n.state));
    }
  });

  void it('partitions (and show_hidden validation)', async () => {
    const r = await api(`${sys}/partitions`, { query: { show_hidden: 'true' } });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.partitions.length > 0);
    for (const p of r.body.partitions) {
      assert.equal(typeof p.name, 'string');
      assert.ok('cpus' in p && 'totalNodes' in p);
      assert.ok(typeof p.partition === 'string' || Array.isArray(p.partition));
    }
    if (t.gateway) assert.ok(r.body.partitions.some((p: Json) => p.name === 'xfer'));
    const bad = await api(`${sys}/partitions`, { query: { show_hidden: 'maybe' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errorType, 'validation');
    assert.equal(bad.body.data.fields[0].name, 'show_hidden');
    assert.equal(bad.body.data.fields[0].location, 'query');
  });

  void it('reservations', async () => {
    const r = await api(`${sys}/reservations`);
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body.reservations));
    for (const v of r.body.reservations) {
      for (const k of ['name', 'nodeList', 'startTime', 'endTime', 'features', 'state']) assert.ok(k in v, k);
      assert.equal(typeof v.startTime, 'number');
      assert.equal(v.state, String(v.state).toLowerCase());
    }
    if (t.gateway && r.body.reservations.length > 0) assert.ok(r.body.reservations.some((v: Json) => v.name === 'maint'));
  });

  void it('userinfo', async () => {
    const r = await api(`${sys}/userinfo`);
    assert.equal(r.status, 200, r.text);
    assert.equal(typeof r.body.user.id, 'string');
    assert.equal(typeof r.body.user.name, 'string');
    assert.equal(typeof r.body.group.name, 'string');
    assert.ok(r.body.groups.some((g: Json) => g.id === r.body.group.id));
    assert.ok(r.body.accounts === null || Array.isArray(r.body.accounts));
  });
});

void describe('routing rules', () => {
  void it('unknown system is 404 System not found', async () => {
    const r = await api('/status/nosuchcluster/partitions');
    assert.equal(r.status, 404);
    assert.equal(r.body.message, 'System not found');
  });

  void it('unknown route is 404 Not Found with the error body', async () => {
    const r = await api('/no/such/route');
    assert.equal(r.status, 404);
    assert.ok(isErrorBody(r.body), r.text);
    assert.equal(r.body.message, 'Not Found');
  });

  void it('wrong method is 405 with Allow', async () => {
    const r = await api('/status/systems', { method: 'DELETE' });
    assert.equal(r.status, 405);
    assert.ok(isErrorBody(r.body), r.text);
    assert.match(r.headers.get('allow') ?? '', /GET/);
  });

  void it('lower-cases the path, system names included', async () => {
    const r = await api(`/STATUS/${t.system.toUpperCase()}/Partitions`, { query: { show_hidden: 'False' } });
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body.partitions));
  });
});
