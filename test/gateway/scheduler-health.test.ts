/**
 * The scheduler's health as the v2 server reports and enforces it (§3.1 503, §3.2 servicesHealth):
 * the gateway's admin switch `PUT /_admin/scheduler {"down": true}` makes the scheduler unreachable
 * (as with slurmctld down; the machine's Slurm is not touched); the health probe then marks it
 * unhealthy, compute and transfer routes answer 503 with the reference's body before running
 * anything, status routes still try (500), file operations are unaffected; back up, all is well.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, api, isErrorBody, t, workDir, type Json } from './support';

const S = t.system;
const UNHEALTHY = `The scheduler service for the requested system (${S}) is unhealthy.`;

async function schedulerHealth(): Promise<Json> {
  const r = await api('/status/systems');
  assert.equal(r.status, 200, r.text);
  const sys = (r.body.systems as Json[]).find((s) => s.name === S);
  return (sys.servicesHealth as Json[]).find((h) => h.serviceType === 'scheduler');
}

void describe('scheduler health (admin outage switch)', { skip: gatewayOnly() }, () => {
  after(async () => { if (t.gateway) await admin('PUT', '/scheduler', { down: false }); });

  void it('a scheduler that is down is reported unhealthy, and the routes that need it answer 503', async () => {
    assert.equal((await schedulerHealth()).healthy, true);
    const home = await workDir();
    const down = await admin('PUT', '/scheduler', { down: true });
    assert.equal(down.status, 200, down.text);
    assert.equal(down.body.down, true);
    assert.equal(down.body.systems[S].healthy, false, 'the answer comes after a fresh probe');

    const h = await schedulerHealth();
    assert.equal(h.healthy, false);
    assert.match(String(h.message), /DOWN/);

    const calls: [string, string, unknown?][] = [
      ['GET', `/compute/${S}/jobs`],
      ['GET', `/compute/${S}/jobs/1`],
      ['DELETE', `/compute/${S}/jobs/1`],
      ['POST', `/compute/${S}/jobs`, { job: { workingDirectory: home, script: '#!/bin/bash\ntrue\n' } }],
      ['POST', `/filesystem/${S}/transfer/upload`, { path: `${home}/never.bin`, transferDirectives: { transferMethod: 's3', fileSize: 10 } }],
      ['POST', `/filesystem/${S}/transfer/mv`, { sourcePath: `${home}/a`, targetPath: `${home}/b` }],
    ];
    for (const [method, path, json] of calls) {
      const r = await api(path, { method, json });
      assert.equal(r.status, 503, `${method} ${path}: ${r.text}`);
      assert.ok(isErrorBody(r.body));
      assert.deepEqual({ ...r.body, user: undefined }, { errorType: 'error', message: UNHEALTHY, causedBy: null, data: null, user: undefined });
      assert.equal(typeof r.body.user, 'string');
    }
    // Status routes ignore the health and try the scheduler (the reference's wrapped 500).
    const parts = await api(`/status/${S}/partitions`);
    assert.equal(parts.status, 500, parts.text);
    assert.match(parts.body.message, /Unable to contact slurm controller/);
    // File operations do not need the scheduler. (A stat: a listing of the home folder can fail
    // while other suites' transfer jobs remove their logs there, as `ls` does on the real server.)
    assert.equal((await api(`/filesystem/${S}/ops/stat`, { query: { path: home } })).status, 200);
  });

  void it('back up: healthy again and the compute routes answer', async () => {
    const up = await admin('PUT', '/scheduler', { down: false });
    assert.equal(up.body.systems[S].healthy, true, up.text);
    assert.equal((await schedulerHealth()).healthy, true);
    const r = await api(`/compute/${S}/jobs`);
    assert.equal(r.status, 200, r.text);
  });

  void it('the switch refuses anything but {"down": boolean}', async () => {
    assert.equal((await admin('PUT', '/scheduler', { down: 'yes' })).status, 400);
    assert.equal((await admin('GET', '/scheduler')).body.down, false);
  });
});
