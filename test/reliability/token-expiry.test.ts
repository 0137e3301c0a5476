/**
 * Token expiry in the middle of work: no failure reaches the caller.
 *
 * Two kinds of expiry, both for real against the gateway: a short `tokenLifetimeSeconds` (the
 * client must renew on time, many times in one operation), and early expiry on demand
 * (`POST /_admin/tokens/expire`: the token the client holds is refused as expired although its
 * `exp` says otherwise, as with an identity provider whose clock runs ahead). The latter is
 * triggered again after every renewal, so one staged upload, one staged download and one job wait
 * each run into several refusals; each must be cured by one refresh and one retry.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ClientEvents, FirecrestClient } from '../../src/core/index';
import { client, gateway, scratchDir, t } from '../core/support';
import { gatewayOnly } from '../support/target';
import { expireTokens, stats } from './admin';

const S = t.system;
const MiB = 1024 * 1024;

/**
 * Expires the gateway's tokens again once the client has renewed and used its new token twice
 * (twice: a request that was in flight with the old token must get its own retry through first).
 */
class Expirer {
  armed = false;
  expiries = 0;
  refused = 0;
  tokens = 0;
  private sinceRenewal = -1;
  private pending: Promise<unknown> = Promise.resolve();
  readonly events: ClientEvents = {
    onToken: () => { this.tokens++; this.sinceRenewal = 0; },
    onRequest: (e) => {
      if (e.route.endsWith('/auth/token')) return;
      if (e.status === 401) this.refused++;
      if (!this.armed || e.status === undefined || e.status >= 300 || this.sinceRenewal < 0) return;
      if (++this.sinceRenewal < 2) return;
      this.sinceRenewal = -1;
      this.expiries++;
      this.pending = this.pending.then(() => expireTokens());
    },
  };
  async disarm(): Promise<void> {
    this.armed = false;
    await this.pending;
  }
}

void describe('token expiry mid-operation', { skip: gatewayOnly() }, () => {
  let c: FirecrestClient;
  let dir: string;
  let local: string;
  let lifetime = 300;
  let partSize = 2147483648;
  const ex = new Expirer();

  before(async () => {
    const s = await gateway.getSettings();
    lifetime = s.tokenLifetimeSeconds ?? lifetime;
    partSize = s.maxPartSize ?? partSize;
    c = await client({}, {}, ex.events);
    dir = await scratchDir(c, 'token-expiry');
    local = mkdtempSync(join(tmpdir(), 'f7t-token-'));
  });
  after(async () => {
    await ex.disarm();
    await gateway.settings({ tokenLifetimeSeconds: lifetime, maxPartSize: partSize });
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
    rmSync(local, { recursive: true, force: true });
  });

  void it('a staged upload and download complete and verify across several early expiries', async () => {
    await gateway.settings({ maxPartSize: MiB });
    const data = randomBytes(3 * MiB + 4321);
    const hash = createHash('sha256').update(data).digest('hex');
    const src = join(local, 'up.bin');
    writeFileSync(src, data);
    const refused0 = ex.refused;
    ex.armed = true;
    const up = await c.transfers.uploadFile(S, src, `${dir}/up.bin`);
    const upExpiries = ex.expiries;
    const down = await c.transfers.downloadFile(S, `${dir}/up.bin`, join(local, 'down.bin'));
    await ex.disarm();
    assert.deepEqual([up.route, up.verified, up.sha256], ['staged', true, hash], up.note);
    assert.deepEqual([down.route, down.verified], ['staged', true], down.note);
    assert.equal(createHash('sha256').update(readFileSync(join(local, 'down.bin'))).digest('hex'), hash);
    assert.ok(upExpiries >= 2, `the upload ran into ${upExpiries} expiries`);
    assert.ok(ex.expiries - upExpiries >= 2, `the download ran into ${ex.expiries - upExpiries} expiries`);
    assert.ok(ex.refused - refused0 >= 4, `${ex.refused - refused0} requests were refused and retried`);
  });

  void it('waitForJob outlives repeated early expiries and a 33-second token lifetime', async () => {
    // 33 s: the client may use a token for about 2 s (the v2 server refuses the last 30 s).
    await gateway.settings({ tokenLifetimeSeconds: 33 });
    const tokens0 = (await stats()).tokenRequests;
    const refused0 = ex.refused;
    const expiries0 = ex.expiries;
    ex.armed = true;
    const id = await c.submitJob(S, { workingDirectory: dir, script: '#!/bin/bash\nsleep 12\necho done\n', name: 'f7t-token-expiry' });
    const job = await c.waitForJob(S, id, { overallTimeoutMs: 300_000 });
    const list = await c.list(S, dir);
    await ex.disarm();
    assert.equal(job.state, 'COMPLETED');
    assert.equal(job.exitCode, 0);
    assert.ok(list.length >= 1);
    assert.ok(ex.expiries - expiries0 >= 2, `${ex.expiries - expiries0} early expiries during the wait`);
    assert.ok(ex.refused - refused0 >= 2, `${ex.refused - refused0} refusals cured by a refresh`);
    // The job sleeps 12 s and a token lasts ~2 s: renewals for both reasons, all transparent.
    assert.ok((await stats()).tokenRequests - tokens0 >= 4);
  });
});
