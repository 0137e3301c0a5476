/**
 * API v1 upload names that a multipart filename from undici's FormData would carry percent-encoded
 * (`"` → %22, line breaks → %0A/%0D): refused with a typed error, never stored under the encoded
 * name. Names v1 takes still arrive exactly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvalidInputError, type FirecrestClient } from '../../src/core/index';
import { client, dec, enc, scratchDir, t } from './support';

void describe('v1 upload names', { skip: t.apiVersion !== 'v1' ? 'runs with --api v1' : false }, () => {
  let c: FirecrestClient;
  let dir: string;
  before(async () => {
    c = await client({}, { apiVersion: 'v1' });
    dir = await scratchDir(c, 'v1names');
  });
  after(async () => {
    await c.remove(t.system, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('a double quote or a line break is a typed refusal; nothing is stored under an encoded name', async () => {
    for (const name of ['quote"double', 'new\nline', 'cr\rhere']) {
      await assert.rejects(c.uploadSmall(t.system, dir, name, enc('x')), (e: unknown) => e instanceof InvalidInputError && e.message.includes(JSON.stringify(name)));
    }
    assert.deepEqual((await c.list(t.system, dir, { showHidden: true })).map((e) => e.name), []);
  });

  void it('other names arrive as they are', async () => {
    for (const name of ['with space', 'ünïcödé', 'per%22cent', 'tab-less.txt']) {
      await c.uploadSmall(t.system, dir, name, enc(name));
      assert.equal(dec(await c.downloadSmall(t.system, `${dir}/${name}`)), name);
    }
    assert.deepEqual((await c.list(t.system, dir, { showHidden: true })).map((e) => e.name).sort(), ['per%22cent', 'tab-less.txt', 'with space', 'ünïcödé'].sort());
  });
});
