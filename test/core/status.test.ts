import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NotFoundError, NotSupportedError, createClient, type FirecrestClient } from '../../src/core/index';
import { client, clientOptions, t } from './support';

void describe('status routes', () => {
  let c: FirecrestClient;
  before(async () => { c = await client(); });
  after(async () => { await c.dispose(); });

  void it('auto-detects v2 and reads the server version', async () => {
    const a = await client({}, { apiVersion: 'auto' });
    try {
      assert.equal(a.apiVersion, 'v2');
      const v = await a.serverVersion();
      assert.ok(v && /^2(\.|$)/.test(v), `version ${v}`);
    } finally {
      await a.dispose();
    }
  });

  void it('auto-detects a v1 deployment and reads its version from /status/parameters', { skip: t.gateway?.v1 ? false : 'needs the local gateway\'s v1 URL' }, async () => {
    const v1 = await createClient(clientOptions({}, { apiVersion: 'auto', url: t.gateway?.v1 ?? '' }));
    try {
      assert.equal(v1.apiVersion, 'v1');
      const v = await v1.serverVersion();
      assert.ok(v && /^1\.\d+\.\d+/.test(v), `version ${v}`);
      assert.equal(v1.capabilities.attach, false);
      await assert.rejects(v1.attachToJob(t.system, '1', 'true'), NotSupportedError);
    } finally {
      await v1.dispose();
    }
  });

  void it('systems: the target system with health, file systems and the direct-transfer limit', async () => {
    const systems = await c.systems();
    const s = systems.find((x) => x.name === t.system);
    assert.ok(s, `system ${t.system} listed`);
    assert.ok(['ok', 'degraded', 'down', 'unknown'].includes(s.health.status));
    assert.ok(s.fileSystems.some((f) => f.defaultWorkDir));
    assert.ok(s.maxDirectTransferSize > 0 && s.maxDirectTransferSize <= 1024 * 1024);
  });

  void it('partitions, nodes, reservations, userinfo', async () => {
    const parts = await c.partitions(t.system);
    assert.ok(parts.length > 0);
    for (const p of parts) assert.match(p.state, /^[A-Z,_]+$/);
    const nodes = await c.nodes(t.system);
    assert.ok(nodes.length > 0);
    assert.ok(nodes[0].states.length > 0 && nodes[0].cpus > 0);
    const res = await c.reservations(t.system);
    for (const r of res) {
      assert.ok(r.start instanceof Date && !Number.isNaN(r.start.getTime()));
      assert.ok(['active', 'inactive'].includes(r.state) || r.state.length > 0);
    }
    const u = await c.userInfo(t.system);
    assert.ok(u.user.name && u.user.id);
    assert.ok(u.groups.length > 0);
  });

  void it('an unknown system is NotFoundError with the route template', async () => {
    await assert.rejects(c.partitions('no-such-system'), (e: unknown) => e instanceof NotFoundError && e.status === 404 && e.route === 'GET /status/{system}/partitions');
  });
});
