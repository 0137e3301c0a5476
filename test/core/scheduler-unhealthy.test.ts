/**
 * A scheduler the server's health checker marked unhealthy (v2: 503 `The scheduler service for the
 * requested system (<system>) is unhealthy.`) reaches callers as a typed UnavailableError with that
 * text, for reads and for a submission alike; file operations go on. The outage is the local
 * gateway's admin switch (`PUT /_admin/scheduler`), not a stopped Slurm.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnavailableError, type FirecrestClient } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, scratchDir, t } from './support';

const S = t.system;

async function schedulerDown(down: boolean): Promise<void> {
  const g = t.gateway;
  if (!g?.admin || !g.adminToken) throw new Error('no gateway admin API');
  const res = await fetch(`${g.admin}/scheduler`, { method: 'PUT', headers: { authorization: `Bearer ${g.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ down }) });
  assert.equal(res.status, 200, await res.text());
}

void describe('scheduler unhealthy (503)', { skip: gatewayOnly() }, () => {
  let c: FirecrestClient;
  let dir = '';
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'sched-down');
  });
  after(async () => {
    if (t.gateway) await schedulerDown(false);
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('job calls fail with UnavailableError naming the unhealthy scheduler; files still work', async () => {
    await schedulerDown(true);
    const unhealthy = (e: unknown): boolean =>
      e instanceof UnavailableError && e.status === 503 && e.message.includes(`The scheduler service for the requested system (${S}) is unhealthy.`);
    await assert.rejects(c.jobs(S), unhealthy);
    await assert.rejects(c.submitJob(S, { workingDirectory: dir, script: '#!/bin/bash\ntrue\n' }), unhealthy);
    const health = (await c.systems()).find((s) => s.name === S)?.health;
    assert.notEqual(health?.status, 'ok', JSON.stringify(health));
    assert.equal(health?.services.find((h) => h.service === 'scheduler')?.healthy, false, 'the Systems view sees the failing service');
    assert.ok(Array.isArray(await c.list(S, dir)));
    await schedulerDown(false);
    assert.ok(Array.isArray(await c.jobs(S)));
  });
});
