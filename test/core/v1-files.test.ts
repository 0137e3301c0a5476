/**
 * API v1 utilities through the v1 adapter over real HTTP: contents round-trip, the form/query
 * names the server reads, and the `X-*` headers arriving as typed errors.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, InvalidInputError, NotFoundError, NotSupportedError, PermissionDeniedError, TooLargeError, type FirecrestClient } from '../../src/core/index';
import { gatewayOnly, secondUserMissing } from '../support/target';
import { bobClient, client, clientOptions, dec, enc, gateway, scratchDir, t } from './support';

const v1 = { apiVersion: 'v1' as const };

void describe('v1 utilities', { skip: t.apiVersion !== 'v1' ? 'runs with --api v1' : false }, () => {
  let c: FirecrestClient;
  let dir: string;
  const S = t.system;
  before(async () => {
    c = await client({}, v1);
    dir = await scratchDir(c, 'v1files');
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('reports the server version and v1 capabilities', async () => {
    assert.equal(c.apiVersion, 'v1');
    assert.match((await c.serverVersion()) ?? '', /^\d+\.\d+\.\d+$/);
    assert.equal(c.capabilities.directRename, true);
    assert.equal(c.capabilities.attach, false);
    await assert.rejects(c.attachToJob(S, '1', 'true'), NotSupportedError);
  });

  void it('an auto profile detects v1 and gets the v1 adapter', async () => {
    const a = await client({}, { apiVersion: 'auto' });
    try {
      assert.equal(a.apiVersion, 'v1');
      assert.ok((await a.list(S, dir)).every((e) => typeof e.name === 'string'));
    } finally {
      await a.dispose();
    }
  });

  void it('systems carry health, file systems and the capped direct-transfer limit', async () => {
    const sys = (await c.systems()).find((s) => s.name === S);
    assert.ok(sys);
    assert.equal(sys.health.status, 'ok');
    assert.ok(sys.fileSystems.some((f) => f.defaultWorkDir));
    assert.ok(sys.maxDirectTransferSize > 0 && sys.maxDirectTransferSize <= 1024 * 1024);
  });

  void it('upload, download, view and checksum round-trip bytes (upload names the file by its part)', async () => {
    const data = new Uint8Array(70_000).map((_, i) => (i * 31 + 7) % 256);
    await c.uploadSmall(S, dir, 'blob.bin', data);
    assert.deepEqual(await c.downloadSmall(S, `${dir}/blob.bin`), data);
    assert.equal((await c.checksum(S, `${dir}/blob.bin`)).checksum, createHash('sha256').update(data).digest('hex'));
    const lines = Array.from({ length: 25 }, (_, i) => `line ${i}`).join('\n') + '\n';
    await c.uploadSmall(S, dir, 'lines.txt', enc(lines));
    // view reads the whole file although the server's view stops after 10 lines (Q6).
    assert.equal(await c.view(S, `${dir}/lines.txt`), lines);
    assert.equal((await c.head(S, `${dir}/lines.txt`, { lines: 2 })).content, 'line 0\nline 1\n');
    assert.equal((await c.tail(S, `${dir}/lines.txt`, { bytes: 8 })).content, 'line 24\n');
    assert.match(await c.fileType(S, `${dir}/lines.txt`), /text/i);
    assert.equal((await c.stat(S, `${dir}/lines.txt`)).size, Buffer.byteLength(lines));
  });

  void it('mkdir -p, ls with hidden files, symlink, chmod, rename, copy, rm', async () => {
    await c.mkdir(S, `${dir}/a/b/c`, { parents: true });
    await assert.rejects(c.mkdir(S, `${dir}/x/y`), NotFoundError);
    await c.uploadSmall(S, `${dir}/a`, '.hidden', enc('h'));
    assert.ok(!(await c.list(S, `${dir}/a`)).some((e) => e.name === '.hidden'));
    const all = await c.list(S, `${dir}/a`, { showHidden: true });
    assert.equal(all.find((e) => e.name === 'b')?.kind, 'directory');
    assert.equal(all.find((e) => e.name === '.hidden')?.size, 1);
    await c.symlink(S, `${dir}/a/.hidden`, `${dir}/link`);
    assert.equal((await c.list(S, dir)).find((e) => e.name === 'link')?.linkTarget, `${dir}/a/.hidden`);
    assert.equal((await c.chmod(S, `${dir}/a/.hidden`, '600'))?.permissions, 'rw-------');
    assert.equal((await c.list(S, `${dir}/a`, { showHidden: true })).find((e) => e.name === '.hidden')?.permissions, 'rw-------');
    const me = await c.userInfo(S);
    assert.equal((await c.chown(S, `${dir}/a/.hidden`, me.user.name, me.group.name))?.owner, me.user.name);
    assert.equal(await c.move(S, `${dir}/a/.hidden`, `${dir}/moved`), undefined);
    assert.equal(await c.copy(S, `${dir}/moved`, `${dir}/copied`), undefined);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/copied`)), 'h');
    await c.remove(S, `${dir}/a`);
    await assert.rejects(c.stat(S, `${dir}/a`), NotFoundError);
  });

  void it('recursive listing, compress and extract (>= 1.16.0)', async () => {
    await c.mkdir(S, `${dir}/src/sub`, { parents: true });
    await c.uploadSmall(S, `${dir}/src/sub`, 'f.txt', enc('inside'));
    assert.ok((await c.list(S, `${dir}/src`, { recursive: true })).some((e) => e.name.endsWith('f.txt')));
    assert.equal(await c.compress(S, `${dir}/src`, `${dir}/src.tar.gz`), undefined);
    await c.mkdir(S, `${dir}/out`);
    assert.equal(await c.extract(S, `${dir}/src.tar.gz`, `${dir}/out`), undefined);
    assert.equal(dec(await c.downloadSmall(S, `${dir}/out/src/sub/f.txt`)), 'inside');
  });

  void it('userInfo comes from whoami with groups', async () => {
    const u = await c.userInfo(S);
    assert.ok(u.user.name);
    assert.ok(u.groups.some((g) => g.id === u.group.id));
  });

  void it('X-* headers become typed errors', async () => {
    await assert.rejects(c.list(S, `${dir}/nope`), NotFoundError);
    await assert.rejects(c.downloadSmall(S, `${dir}/nope`), NotFoundError);
    await assert.rejects(c.chmod(S, dir, 'bogus'), InvalidInputError);
    await assert.rejects(c.head(S, `${dir}/nope`, { bytes: 1, lines: 1 }), InvalidInputError);
    await assert.rejects(c.mkdir(S, dir), InvalidInputError);
    await assert.rejects(c.list(S, '/root'), PermissionDeniedError);
    await assert.rejects(c.list('no-such-system', dir), (e: unknown) => e instanceof NotFoundError && e.message.includes('no-such-system'));
    await assert.rejects(c.jobs('no-such-system'), (e: unknown) => e instanceof NotFoundError && e.message.includes('no-such-system'));
  });

  void it('an upload over the server limit is TooLargeError', async () => {
    const limit = (await c.systems()).find((x) => x.name === S)?.maxOpsFileSize ?? 5 * 1024 * 1024;
    await assert.rejects(c.uploadSmall(S, dir, 'big.bin', new Uint8Array(limit + 1024)), TooLargeError);
  });

  void it('a refused token is UnauthorizedError', async () => {
    const bad = await createClient(clientOptions({ staticToken: 'not-a-jwt' }, { ...v1, tokenUrl: undefined, clientId: undefined }));
    try {
      await assert.rejects(bad.list(S, dir), (e: unknown) => e instanceof Error && e.name === 'UnauthorizedError');
    } finally {
      await bad.dispose();
    }
  });

  void it('X-Timeout on compress falls back to the xfer-internal job (§4.2)', { skip: gatewayOnly() }, async () => {
    // 80 MB of random bytes take gzip well over the 1 s command limit set below.
    const id = await c.submitJob(S, { workingDirectory: dir, script: `#!/bin/bash\nmkdir -p ${dir}/slow && head -c 80000000 /dev/urandom > ${dir}/slow/r.bin\n` });
    assert.equal((await c.waitForJob(S, id, { overallTimeoutMs: 120_000 })).stateClass, 'completed');
    const before = await gateway.getSettings();
    await gateway.settings({ commandTimeoutSeconds: 1 });
    try {
      const job = await c.compress(S, `${dir}/slow`, `${dir}/slow.tar.gz`, { overallTimeoutMs: 240_000 });
      assert.ok(job?.jobId, 'went through a transfer job');
      assert.ok(job.taskId);
    } finally {
      await gateway.settings({ commandTimeoutSeconds: before.commandTimeoutSeconds });
    }
    assert.ok((await c.stat(S, `${dir}/slow.tar.gz`)).size > 70_000_000);
    await c.remove(S, `${dir}/slow`);
    await c.remove(S, `${dir}/slow.tar.gz`);
  });

  void it("another user's private file is PermissionDeniedError", { skip: secondUserMissing(t) }, async () => {
    const b = await bobClient(v1);
    try {
      await c.uploadSmall(S, dir, 'private.txt', enc('mine'));
      await c.chmod(S, dir, '700');
      await assert.rejects(b.downloadSmall(S, `${dir}/private.txt`), PermissionDeniedError);
      await assert.rejects(b.list(S, dir), PermissionDeniedError);
    } finally {
      await c.chmod(S, dir, '755');
      await b.dispose();
    }
  });
});
