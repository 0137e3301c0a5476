/**
 * A site whose large files move by a staged method the client does not speak (streamer, wormhole;
 * issue 40): the client says so in words before it requests anything, and small files still move.
 * The local gateway advertises the method it is told to and refuses s3 requests then, as such a site does.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { NotSupportedError, type FirecrestClient } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, dec, enc, gateway, scratchDir, t } from './support';

const S = t.system;

void describe('staged transfer methods', { skip: gatewayOnly() || (t.apiVersion !== 'v2' ? 'runs with API v2' : false) }, () => {
  let c: FirecrestClient;
  let dir = '';
  before(async () => {
    const setup = await client();
    dir = await scratchDir(setup, 'methods');
    await setup.dispose();
    await gateway.transferMethod('streamer');
    c = await client();
  });
  after(async () => {
    await gateway.transferMethod('s3');
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('a streamer site: a large upload and download are refused in words before any request; small files move directly', async () => {
    const system = (await c.systems()).find((x) => x.name === S);
    assert.equal(system?.transferMethod, 'streamer');
    await gateway.resetStats();
    const big = randomBytes(system.maxDirectTransferSize + 1);
    await assert.rejects(c.transfers.uploadBytes(S, big, `${dir}/big.bin`), (e: unknown) => e instanceof NotSupportedError && /with the "streamer" method, which this extension does not speak yet/.test(e.message));
    const stats = await gateway.stats();
    assert.equal(Object.keys(stats.byRoute).filter((r) => /transfer\/(upload|download)/.test(r)).length, 0, 'nothing was staged');
    await c.uploadSmall(S, dir, 'small.txt', enc('small'));
    assert.equal(dec(await c.downloadSmall(S, `${dir}/small.txt`)), 'small');
  });
});
