/** Fault switches, run-time settings and statistics of the local gateway's admin API. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, api, gw, isErrorBody, sleep, t, token, type Json } from './support';
import { scratchDir } from './support-fs';

const systems = 'GET /v2/status/systems';

void describe('fault switches', { skip: gatewayOnly() }, () => {
  afterEach(async () => {
    await admin('DELETE', '/faults');
  });

  void it('the admin API needs the admin token', async () => {
    const r = await fetch(`${gw().admin}/faults`, { headers: { authorization: `Bearer ${await token()}` } });
    assert.equal(r.status, 401);
    const bad = await admin('PUT', '/faults', { nonsense: {} });
    assert.equal(bad.status, 400);
  });

  void it('rate limiting answers 429 with Retry-After for exactly the next N matching requests', async () => {
    const set = await admin('PUT', '/faults', { rateLimit: { next: 2, match: `^${systems}$`, retryAfterSeconds: 3 } });
    assert.equal(set.status, 200, set.text);
    const other = await api(`/status/${t.system}/userinfo`);
    assert.equal(other.status, 200, 'a request the regex does not match is untouched');
    for (let i = 0; i < 2; i++) {
      const r = await api('/status/systems');
      assert.equal(r.status, 429);
      assert.equal(r.headers.get('retry-after'), '3');
      assert.ok(isErrorBody(r.body));
    }
    assert.equal((await api('/status/systems')).status, 200);
    assert.equal((await admin('GET', '/faults')).body.rateLimit.next, 0);
  });

  void it('added latency delays the answer', async () => {
    await admin('PUT', '/faults', { latency: { next: 1, ms: 400, minMs: 400 } });
    const started = Date.now();
    const r = await api('/status/systems');
    assert.equal(r.status, 200);
    assert.ok(Date.now() - started >= 400, `took ${Date.now() - started} ms`);
  });

  void it('a held request goes on only when the switches are next set, other requests meanwhile', async () => {
    await admin('PUT', '/faults', { hold: { next: 1, match: `^${systems}$` } });
    let answered = false;
    const held = api('/status/systems').then((r) => ((answered = true), r));
    // A request the switch does not match is answered while the other one waits.
    assert.equal((await api(`/status/${t.system}/userinfo`)).status, 200);
    // Seen by the gateway (the countdown is spent) and still unanswered.
    assert.equal((await admin('GET', '/faults')).body.hold.next, 0);
    assert.equal(answered, false);
    await admin('DELETE', '/faults');
    assert.equal((await held).status, 200);
  });

  void it('an error rate answers 5xx with the v2 error body', async () => {
    await admin('PUT', '/faults', { error: { next: 1, statuses: [502] } });
    const r = await api('/status/systems');
    assert.equal(r.status, 502);
    assert.ok(isErrorBody(r.body), r.text);
    await admin('PUT', '/faults', { error: { rate: 1 } });
    for (let i = 0; i < 3; i++) assert.ok([500, 502, 503].includes((await api('/status/systems')).status));
    await admin('PUT', '/faults', { error: { rate: 0 } });
    assert.equal((await api('/status/systems')).status, 200);
  });

  void it('the seeded PRNG replays the same hits', async () => {
    const run = async (): Promise<number[]> => {
      await admin('PUT', '/faults', { seed: 42, error: { rate: 0.5, statuses: [503], match: systems } });
      const out: number[] = [];
      for (let i = 0; i < 8; i++) out.push((await api('/status/systems')).status);
      return out;
    };
    const a = await run();
    const b = await run();
    assert.deepEqual(a, b);
    assert.ok(a.includes(503) && a.includes(200), `mixed outcomes: ${a.join(',')}`);
  });

  void it('a connection dropped before the handler acts', async () => {
    await admin('PUT', '/faults', { dropBefore: { next: 1 } });
    await assert.rejects(api('/status/systems'));
    assert.equal((await api('/status/systems')).status, 200);
  });

  void it('a connection dropped after the handler acted: the job exists although the answer was lost', async () => {
    const name = `f7t-dropped-${randomBytes(4).toString('hex')}`;
    // A folder of its own, so the job's output file does not stay in the home.
    const { path: wd, remove } = await scratchDir('dropped');
    let found: Json;
    try {
      await admin('PUT', '/faults', { dropAfter: { next: 1, match: '^POST /v2/compute/' } });
      await assert.rejects(api(`/compute/${t.system}/jobs`, { method: 'POST', json: { job: { name, workingDirectory: wd, script: '#!/bin/bash\ntrue\n' } } }));
      for (let i = 0; i < 20 && !found; i++) {
        const list = await api(`/compute/${t.system}/jobs`, { query: { name } });
        found = (list.body.jobs ?? []).find((j: Json) => j.name === name);
        if (!found) await sleep(250);
      }
      assert.ok(found, 'the submitted job is listed');
    } finally {
      // Cancelled first (it may still pend on a busy queue), so nothing writes in the folder after.
      if (found) await api(`/compute/${t.system}/jobs/${String(found.jobId)}`, { method: 'DELETE' }).catch(() => undefined);
      await remove();
    }
  });
});

void describe('admin settings and stats', { skip: gatewayOnly() }, () => {
  void it('changes settings at run time', async () => {
    const before = (await admin('GET', '/settings')).body as { maxOpsFileSize: number; commandTimeoutSeconds: number };
    const r = await admin('PUT', '/settings', { maxOpsFileSize: 1234, commandTimeoutSeconds: 7 });
    assert.equal(r.status, 200, r.text);
    try {
      const sys = await api('/status/systems');
      const s = sys.body.systems.find((x: Json) => x.name === t.system);
      assert.equal(s.dataOperation.max_ops_file_size, 1234);
      assert.equal(s.ssh.timeout.commandExecution, 7);
    } finally {
      await admin('PUT', '/settings', { maxOpsFileSize: before.maxOpsFileSize, commandTimeoutSeconds: before.commandTimeoutSeconds });
    }
    assert.equal((await admin('PUT', '/settings', { maxOpsFileSize: -1 })).status, 400);
  });

  void it('counts requests per route template and connections', async () => {
    await token();
    assert.equal((await admin('POST', '/stats/reset')).status, 204);
    await api(`/status/${t.system}/partitions`);
    await api(`/status/${t.system}/partitions`);
    await api('/status/systems');
    const s = await admin('GET', '/stats');
    assert.equal(s.status, 200);
    assert.equal(s.body.byRoute['GET /v2/status/{system}/partitions'], 2);
    assert.equal(s.body.byRoute['GET /v2/status/systems'], 1);
    assert.equal(s.body.requests, 3);
    assert.equal(typeof s.body.connections, 'number');
    await fetch(`${gw().admin}/stats`, { headers: { authorization: `Bearer ${await token()}` } });
    await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    const again = await admin('GET', '/stats');
    assert.equal(again.body.requests, 3, 'admin and token calls are not API requests');
    assert.equal(again.body.tokenRequests, 1);
  });
});
