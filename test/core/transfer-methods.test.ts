/**
 * Sites whose large files do not move through S3 (issue 40). A `streamer` site: the transfer job
 * runs a streamer on the cluster and the client moves the bytes over a WebSocket; uploads (new
 * files and saves over existing ones), downloads, contents and SHA-256 verified, also in a folder
 * whose path has a space against upstream's unquoted job script. A `wormhole` site: the client says
 * in words that it does not speak the method, before it requests anything; small files still move.
 * The local gateway advertises the method it is told to and runs its streamer in the transfer job.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NotSupportedError, type FirecrestClient, type Progress } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, dec, enc, gateway, scratchDir, t } from './support';

const S = t.system;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

void describe('staged transfer methods', { skip: gatewayOnly() || (t.apiVersion !== 'v2' ? 'runs with API v2' : false) }, () => {
  let c: FirecrestClient;
  let dir = '';
  let local = '';
  before(async () => {
    const setup = await client();
    dir = await scratchDir(setup, 'methods');
    await setup.dispose();
    local = await mkdtemp(join(tmpdir(), 'f7t-methods-'));
  });
  after(async () => {
    await gateway.transferMethod('s3');
    await gateway.compat('none');
    await c?.remove(S, dir).catch(() => undefined);
    await c?.dispose();
    await rm(local, { recursive: true, force: true });
  });

  void it('a streamer site: large uploads (new and over an existing file) and downloads round-trip verified, through the WebSocket', async () => {
    await gateway.transferMethod('streamer');
    c = await client();
    const system = (await c.systems()).find((x) => x.name === S);
    assert.equal(system?.transferMethod, 'streamer');
    await gateway.resetStats();
    // Three streamer messages of 5 MiB (the last shorter): more than the direct limit.
    const first = randomBytes(system.maxDirectTransferSize * 2 + 1234);
    const phases: Progress['phase'][] = [];
    const up = await c.transfers.uploadBytes(S, first, `${dir}/big.bin`, { onProgress: (p) => phases.push(p.phase) });
    assert.deepEqual([up.route, up.verified, up.sha256], ['staged', true, sha256(first)]);
    assert.ok(phases.includes('uploading') && phases.at(-1) === 'verified', phases.join(','));
    // A save over it: upstream's job refuses an existing target, so this goes through a new name.
    const second = randomBytes(system.maxDirectTransferSize + 99);
    const again = await c.transfers.uploadBytes(S, second, `${dir}/big.bin`);
    assert.equal(again.verified, true);
    const into = join(local, 'big.bin');
    const down = await c.transfers.downloadFile(S, `${dir}/big.bin`, into);
    assert.deepEqual([down.route, down.verified, down.bytes], ['staged', true, second.length]);
    assert.equal(sha256(await readFile(into)), sha256(second));
    const names = (await c.list(S, dir)).map((e) => e.name).sort();
    assert.deepEqual(names, ['big.bin'], 'no temporary file or job log is left');
    const byRoute = (await gateway.stats()).byRoute;
    assert.ok(Object.keys(byRoute).some((r) => /transfer\/upload/.test(r)) && Object.keys(byRoute).some((r) => /transfer\/download/.test(r)), JSON.stringify(byRoute));
  });

  void it('a streamer site against upstream\'s unquoted job script: a folder with a space', async () => {
    await gateway.transferMethod('streamer');
    await gateway.compat('upstream');
    c ??= await client();
    const spaced = `${dir}/my data`;
    await c.mkdir(S, spaced);
    const data = randomBytes(6 * 1024 * 1024 + 7);
    const file = join(local, 'in.bin');
    await writeFile(file, data);
    const up = await c.transfers.uploadFile(S, file, `${spaced}/in put.bin`);
    assert.equal(up.sha256, sha256(data));
    const into = join(local, 'out.bin');
    const down = await c.transfers.downloadFile(S, `${spaced}/in put.bin`, into);
    assert.equal(down.sha256, sha256(data));
    assert.equal(sha256(await readFile(into)), sha256(data));
    assert.deepEqual((await c.list(S, spaced)).map((e) => e.name), ['in put.bin']);
    await gateway.compat('none');
  });

  void it('a wormhole site: a large upload is refused in words before any request; small files move directly', async () => {
    await gateway.transferMethod('wormhole');
    await c?.dispose();
    c = await client();
    const system = (await c.systems()).find((x) => x.name === S);
    assert.equal(system?.transferMethod, 'wormhole');
    await gateway.resetStats();
    const big = randomBytes(system.maxDirectTransferSize + 1);
    await assert.rejects(c.transfers.uploadBytes(S, big, `${dir}/big.bin`), (e: unknown) => e instanceof NotSupportedError && /with the "wormhole" method, which this extension does not speak yet/.test(e.message));
    const stats = await gateway.stats();
    assert.equal(Object.keys(stats.byRoute).filter((r) => /transfer\/(upload|download)/.test(r)).length, 0, 'nothing was staged');
    await c.uploadSmall(S, dir, 'small.txt', enc('small'));
    assert.equal(dec(await c.downloadSmall(S, `${dir}/small.txt`)), 'small');
  });
});
