/**
 * The provider core's listing cache against the gateway: the stats VS Code makes for every child
 * of a folder it just listed cost no request, and a newer listing of the folder (a poll, a change of
 * ours) is what the next stat answers from, never the one before it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FirecrestUri, NotFoundError, type FirecrestClient } from '../../src/core/index';
import { FsError } from '../../src/fs/fsError';
import { RemoteFileSystem } from '../../src/fs/remoteFileSystem';
import { gatewayOnly } from '../support/target';
import { client, enc, gateway, scratchDir, t } from './support';

void describe('fs: stats answered from the folder listing', () => {
  let c: FirecrestClient;
  let dir: FirecrestUri;
  before(async () => {
    c = await client();
    dir = FirecrestUri.from({ system: t.system, path: await scratchDir(c, 'fscache') });
    for (let i = 0; i < 20; i++) await c.uploadSmall(t.system, dir.path, `f${i}`, enc(`${i}`));
  });
  after(async () => {
    await c.remove(t.system, dir.path).catch(() => undefined);
    await c.dispose();
  });
  const fsOf = () => new RemoteFileSystem({ clientFor: () => Promise.resolve(c), directLimit: () => Promise.resolve(1024 * 1024), ttlMs: 60_000 });
  const child = (n: string) => dir.joinPath(n);

  void it('20 children: one listing, no request per stat', { skip: gatewayOnly() }, async () => {
    const fs = fsOf();
    await gateway.resetStats();
    const names = (await fs.readDirectory(dir)).map(([n]) => n);
    const stats = await Promise.all(names.map(async (n) => fs.stat(child(n))));
    assert.equal(stats.length, 20);
    assert.deepEqual(stats.map((s) => s.name).sort(), names.sort());
    assert.equal((await gateway.stats()).requests, 1);
  });

  void it('a refreshed listing answers the next stats: a removed file is gone, a new one is there', async () => {
    const fs = fsOf();
    await fs.readDirectory(dir);
    assert.equal((await fs.stat(child('f1'))).size, 1);
    await c.remove(t.system, child('f1').path);
    await c.uploadSmall(t.system, dir.path, 'f1-new', enc('new'));
    assert.equal((await fs.stat(child('f1'))).size, 1, 'still the cached listing');
    await fs.list(dir, 0); // what the change poller does
    await assert.rejects(async () => fs.stat(child('f1')), (e: unknown) => e instanceof FsError && e.code === 'FileNotFound');
    assert.equal((await fs.stat(child('f1-new'))).size, 3);
    await c.uploadSmall(t.system, dir.path, 'f2', enc('changed'));
    fs.invalidate(dir);
    assert.equal((await fs.stat(child('f2'))).size, 7, 'after invalidate, a new listing');
  });

  void it('stats of two folders in turn each answer from their own listing', async () => {
    const fs = fsOf();
    const sub = dir.joinPath('sub');
    await c.mkdir(t.system, sub.path);
    await c.uploadSmall(t.system, sub.path, 'f3', enc('in sub'));
    await fs.readDirectory(dir);
    await fs.readDirectory(sub);
    assert.equal((await fs.stat(child('f3'))).size, 1);
    assert.equal((await fs.stat(sub.joinPath('f3'))).size, 6);
    assert.equal((await fs.stat(child('f3'))).size, 1);
    await assert.rejects(async () => fs.stat(sub.joinPath('f4')), (e: unknown) => e instanceof FsError && e.code === 'FileNotFound');
  });

  void it('a file in a folder made on the cluster after its parent was listed is found (a job\'s new folder)', async () => {
    const fs = fsOf();
    await fs.readDirectory(dir);
    const made = dir.joinPath(`made-later`);
    await c.mkdir(t.system, made.path);
    await c.uploadSmall(t.system, made.path, 'out.txt', enc('job output'));
    // The cached listing of `dir` predates the folder: asked for by name, it is looked up.
    assert.equal((await fs.stat(made.joinPath('out.txt'))).size, 10);
    assert.equal(new TextDecoder().decode(await fs.readFile(made.joinPath('out.txt'))), 'job output');
    await assert.rejects(async () => fs.stat(dir.joinPath('never-made', 'x.txt')), (e: unknown) => (e instanceof FsError && e.code === 'FileNotFound') || e instanceof NotFoundError);
  });

  void it('VS Code\'s probes in a folder the listing lacks cost no request', { skip: gatewayOnly() }, async () => {
    const fs = fsOf();
    await fs.readDirectory(dir);
    await gateway.resetStats();
    for (const probe of ['.vscode/settings.json', '.git/HEAD', 'node_modules/package.json']) {
      await assert.rejects(async () => fs.stat(dir.joinPath(...probe.split('/'))), (e: unknown) => e instanceof FsError && e.code === 'FileNotFound');
    }
    assert.equal((await gateway.stats()).requests, 0);
  });
});
