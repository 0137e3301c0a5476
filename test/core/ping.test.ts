/**
 * Telling a slow request from a server that is away, over real HTTP: a request without an answer
 * reports `onNoAnswerYet` once, after `slowAfterMs`; `client.ping()` is one request without a token
 * or a retry, true when anything answers in time, false when nothing does or nothing listens.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FirecrestClient } from '../../src/core/index';
import { CancelledError } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, gateway, t } from './support';

void describe('no answer yet, and ping', () => {
  const slow: { route: string; waitedMs: number }[] = [];
  let c: FirecrestClient;

  before(async () => {
    c = await client({ slowAfterMs: 500 }, {}, { onNoAnswerYet: (e) => slow.push(e) });
  });
  after(async () => {
    if (!gatewayOnly()) await gateway.clearFaults();
    await c.dispose();
  });

  void it('a prompt server: ping is true, and no request reports a missing answer', async () => {
    assert.equal(await c.ping(), true);
    await c.systems();
    assert.deepEqual(slow, []);
  });

  void it('a request that waits past slowAfterMs reports it once, and still gets its answer', { skip: gatewayOnly() }, async () => {
    slow.length = 0;
    await gateway.faults({ latency: { next: 1, ms: 2000, minMs: 2000, match: 'status/systems' } });
    const systems = await c.systems();
    assert.ok(systems.some((s) => s.name === t.system));
    assert.equal(slow.length, 1, JSON.stringify(slow));
    assert.match(slow[0].route, /status\/systems/);
    assert.equal(slow[0].waitedMs, 500);
  });

  void it('a server that does not answer in time: ping is false; answering again, true', { skip: gatewayOnly() }, async () => {
    await gateway.faults({ latency: { rate: 1, ms: 3000, minMs: 3000, match: 'status/systems' } });
    assert.equal(await c.ping({ timeoutMs: 300 }), false);
    await gateway.clearFaults();
    assert.equal(await c.ping({ timeoutMs: 5000 }), true);
  });

  void it('nothing listening: ping is false (no throw); a cancelled ping rejects with CancelledError', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const away = await client({}, { url: `http://127.0.0.1:${port}/v2`, apiVersion: 'v2' });
    try {
      assert.equal(await away.ping({ timeoutMs: 2000 }), false);
      const ctl = new AbortController();
      ctl.abort();
      await assert.rejects(away.ping({ signal: ctl.signal }), CancelledError);
    } finally {
      await away.dispose();
    }
  });
});
