/**
 * v2 filesystem ops routes over real HTTP: wire shapes, status codes and the effects on disk, as the
 * user. Runs against the local gateway (with-gateway) or a real deployment (FIRECREST_URL); the parts
 * needing the second user or the admin switches skip elsewhere.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, isErrorBody, type Reply } from './support';
import { download, maxOpsFileSize, ops, otherUserAuth, scratchDir, tarGzOfEmptyFiles, transfer, upload, waitForJob, type WireFile } from './support-fs';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const FILE_KEYS = ['name', 'type', 'linkTarget', 'user', 'group', 'permissions', 'lastModified', 'size'];

function assertFile(f: WireFile): void {
  assert.deepEqual(Object.keys(f).sort(), [...FILE_KEYS].sort());
  assert.equal(typeof f.size, 'string');
  assert.match(f.permissions, /^[-rwxsStT]{9}$/);
  assert.match(f.lastModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
}

function assertRemoteError(r: Reply, status: number, text: string): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.ok(isErrorBody(r.body));
  assert.match(r.body.message, /^Remote process failed with exit status:\d+ and error message:/);
  assert.ok(r.body.message.includes(text), r.body.message);
}

before(async () => {
  ({ path: dir, remove: cleanup } = await scratchDir('ops'));
});
after(async () => cleanup());

void describe('ops: mkdir, symlink, ls', () => {
  void it('mkdir answers 201 with the File of the new dir; an existing dir is 400 File exists', async () => {
    const r = await ops('mkdir', { method: 'POST', json: { sourcePath: `${dir}/a/b`, parent: true } });
    assert.equal(r.status, 201);
    assertFile(r.body.output);
    assert.equal(r.body.output.name, `${dir}/a/b`);
    assert.equal(r.body.output.type, 'd');
    assert.equal(r.body.output.linkTarget, null);
    const again = await ops('mkdir', { method: 'POST', json: { path: `${dir}/a/b` } });
    assertRemoteError(again, 400, 'File exists');
    const noParent = await ops('mkdir', { method: 'POST', json: { path: `${dir}/x/y` } });
    assertRemoteError(noParent, 404, 'No such file or directory');
  });

  void it('lists hidden files only with showHidden, links with their target, broken links included', async () => {
    const d = `${dir}/list`;
    await ops('mkdir', { method: 'POST', json: { path: `${d}/sub`, parent: true } });
    assert.equal((await upload(d, 'visible.txt', enc('12345'))).status, 204);
    assert.equal((await upload(d, '.hidden', enc('h'))).status, 204);
    assert.equal((await upload(`${d}/sub`, 'deep.txt', enc('deep'))).status, 204);
    const good = await ops('symlink', { method: 'POST', json: { path: `${d}/visible.txt`, linkPath: `${d}/good` } });
    assert.equal(good.status, 201);
    assert.deepEqual([good.body.output.name, good.body.output.type, good.body.output.linkTarget], [`${d}/good`, 'l', `${d}/visible.txt`]);
    const broken = await ops('symlink', { method: 'POST', json: { sourcePath: `${d}/nowhere`, link_path: `${d}/broken` } });
    assert.equal(broken.status, 201);
    // The real server's `ln -s` would put the link inside an existing directory; the gateway refuses.
    if (!gatewayOnly()) assertRemoteError(await ops('symlink', { method: 'POST', json: { path: `${d}/nowhere`, linkPath: `${d}/sub` } }), 400, 'File exists');

    const plain = await ops('ls', { query: { path: d, showHidden: 'false', recursive: 'false', numericUid: 'false', dereference: 'false' } });
    assert.equal(plain.status, 200);
    plain.body.output.forEach(assertFile);
    assert.deepEqual(plain.body.output.map((f: WireFile) => f.name), ['broken', 'good', 'sub', 'visible.txt']);
    const byName = Object.fromEntries(plain.body.output.map((f: WireFile) => [f.name, f]));
    assert.equal(byName['visible.txt'].size, '5');
    assert.equal(byName['visible.txt'].type, '-');
    assert.deepEqual([byName.broken.type, byName.broken.linkTarget], ['l', `${d}/nowhere`]);
    assert.equal(byName.sub.type, 'd');

    const all = await ops('ls', { query: { path: d, showHidden: 'true' } });
    // Sorted here: a cluster's locale may place `.hidden` elsewhere.
    assert.deepEqual(all.body.output.map((f: WireFile) => f.name).sort(), ['.hidden', 'broken', 'good', 'sub', 'visible.txt']);

    // The real server's `ls -L` fails on a broken link; the gateway lists it as a link.
    if (!gatewayOnly()) {
      const deref = await ops('ls', { query: { path: d, dereference: 'true' } });
      assert.equal(deref.status, 200);
      const dn = Object.fromEntries(deref.body.output.map((f: WireFile) => [f.name, f]));
      assert.deepEqual([dn.good.type, dn.good.linkTarget, dn.good.size], ['-', null, '5']);
      assert.deepEqual([dn.broken.type, dn.broken.linkTarget], ['l', `${d}/nowhere`]);
    }

    const rec = await ops('ls', { query: { path: d, recursive: 'true' } });
    assert.deepEqual(rec.body.output.map((f: WireFile) => f.name), ['broken', 'good', 'sub', 'visible.txt', 'sub/deep.txt']);

    const numeric = await ops('ls', { query: { path: d, numericUid: 'true' } });
    assert.match(numeric.body.output[0].user, /^\d+$/);
    assert.match(numeric.body.output[0].group, /^\d+$/);
  });

  void it('query booleans coerce like FastAPI (1/yes/on/true), anything else is a validation 400', async () => {
    for (const yes of ['1', 'yes', 'on', 'TRUE']) {
      const r = await ops('ls', { query: { path: dir, showHidden: yes } });
      assert.equal(r.status, 200, r.text);
    }
    const bad = await ops('ls', { query: { path: dir, showHidden: 'maybe' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data.fields.map((f: { location: string; name: string }) => [f.location, f.name]), [['query', 'showHidden']]);
  });

  void it('ls of a regular file is a one-element list named as given; missing is 404, relative is 400', async () => {
    await upload(dir, 'single.txt', enc('x'));
    const r = await ops('ls', { query: { path: `${dir}/single.txt` } });
    assert.equal(r.status, 200);
    assert.equal(r.body.output.length, 1);
    assert.equal(r.body.output[0].name, `${dir}/single.txt`);
    const missing = await ops('ls', { query: { path: `${dir}/missing` } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, `Remote process failed with exit status:2 and error message:ls: cannot access '${dir}/missing': No such file or directory`);
    assert.equal((await ops('ls', { query: { path: 'relative/dir' } })).status, 400);
    const none = await ops('ls');
    assert.equal(none.status, 400);
    assert.equal(none.body.errorType, 'validation');
    assert.equal(none.body.data.fields[0].name, 'path');
  });

  void it('lists a 5,000-entry directory quickly and completely', async () => {
    const d = `${dir}/many`;
    await ops('mkdir', { method: 'POST', json: { path: d } });
    const names = Array.from({ length: 5000 }, (_, i) => `f${String(i).padStart(5, '0')} é😀`);
    assert.equal((await upload(dir, 'many.tar.gz', tarGzOfEmptyFiles(names))).status, 204);
    const body = { source_path: `${dir}/many.tar.gz`, target_path: d, compression: 'gzip' };
    const x = await ops('extract', { method: 'POST', json: body });
    if (x.status === 408) {
      // A busy machine: fall back to the transfer job, as the clients do.
      const job = await transfer('extract', { method: 'POST', json: body });
      assert.equal(job.status, 201, job.text);
      assert.equal(await waitForJob(job.body.transferJob.jobId), 'COMPLETED');
    } else {
      assert.equal(x.status, 204, x.text);
    }
    const started = Date.now();
    const r = await ops('ls', { query: { path: d } });
    const ms = Date.now() - started;
    assert.equal(r.status, 200);
    assert.equal(r.body.output.length, 5000);
    assert.deepEqual(r.body.output.map((f: WireFile) => f.name), names);
    assert.ok(ms < 5000, `listing took ${ms} ms`);
  });
});

void describe('ops: content', () => {
  const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  before(async () => { await upload(dir, 'text.txt', enc(text)); });

  void it('head: lines, bytes, skipTrailing, and the FileContent positions', async () => {
    const path = `${dir}/text.txt`;
    const dflt = await ops('head', { query: { path, skipTrailing: 'false' } });
    assert.deepEqual(dflt.body.output, { content: text.split('\n').slice(0, 10).join('\n') + '\n', contentType: 'lines', startPosition: 0, endPosition: 10 });
    const lines = await ops('head', { query: { path, lines: '2' } });
    assert.deepEqual(lines.body.output, { content: 'line 1\nline 2\n', contentType: 'lines', startPosition: 0, endPosition: 2 });
    const bytes = await ops('head', { query: { path, bytes: '4' } });
    assert.deepEqual(bytes.body.output, { content: 'line', contentType: 'bytes', startPosition: 0, endPosition: 4 });
    const skip = await ops('head', { query: { path, lines: '11', skipTrailing: 'true' } });
    assert.deepEqual(skip.body.output, { content: 'line 1\n', contentType: 'lines', startPosition: 0, endPosition: -11 });
  });

  void it('tail: lines, bytes, skipHeading', async () => {
    const path = `${dir}/text.txt`;
    const lines = await ops('tail', { query: { path, lines: '2' } });
    assert.deepEqual(lines.body.output, { content: 'line 11\nline 12\n', contentType: 'lines', startPosition: -2, endPosition: -1 });
    const bytes = await ops('tail', { query: { path, bytes: '3' } });
    assert.deepEqual(bytes.body.output, { content: '12\n', contentType: 'bytes', startPosition: -3, endPosition: -1 });
    const skip = await ops('tail', { query: { path, lines: '12', skipHeading: 'true' } });
    assert.deepEqual(skip.body.output, { content: 'line 12\n', contentType: 'lines', startPosition: 12, endPosition: -1 });
  });

  void it('head/tail refuse bytes and lines together (400) and non-integers (validation 400)', async () => {
    for (const route of ['head', 'tail']) {
      const both = await ops(route, { query: { path: `${dir}/text.txt`, bytes: '1', lines: '1' } });
      assert.equal(both.status, 400);
      assert.equal(both.body.message, 'Only one of `bytes` or `lines` can be specified.');
      const bad = await ops(route, { query: { path: `${dir}/text.txt`, lines: 'ten' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errorType, 'validation');
      assert.deepEqual(bad.body.data.fields.map((f: { location: string; name: string }) => [f.location, f.name]), [['query', 'lines']]);
    }
  });

  void it('view: whole file, size/offset window, bad size/offset are 400', async () => {
    const path = `${dir}/text.txt`;
    assert.deepEqual((await ops('view', { query: { path } })).body, { output: text });
    assert.deepEqual((await ops('view', { query: { path, offset: '5', size: '3' } })).body, { output: '1\nl' });
    assert.deepEqual((await ops('view', { query: { path, offset: '7', size: '2' } })).body, { output: 'li' });
    assert.equal((await ops('view', { query: { path, offset: '-1' } })).status, 400);
    assert.equal((await ops('view', { query: { path, size: '0' } })).status, 400);
    assert.equal((await ops('view', { query: { path, size: String((await maxOpsFileSize()) + 1) } })).status, 400);
    assertRemoteError(await ops('view', { query: { path: `${dir}/missing` } }), 404, 'No such file or directory');
  });

  void it('view of an endless file stops at the output limit (413)', async () => {
    const r = await ops('view', { query: { path: '/dev/zero' } });
    assert.deepEqual([r.status, r.body.message], [413, 'Command output exceeded buffer limit.']);
  });

  void it('checksum, file and stat describe the file', async () => {
    const path = `${dir}/text.txt`;
    const sum = await ops('checksum', { query: { path } });
    assert.deepEqual(sum.body, { output: { algorithm: 'SHA256', checksum: createHash('sha256').update(text).digest('hex') } });
    // sha256sum escapes such a name and marks the line with a leading backslash. (A multipart
    // file name loses everything up to a backslash, so the name comes from a symlink.)
    assert.equal((await ops('symlink', { method: 'POST', json: { path, linkPath: `${dir}/back\\slash.txt` } })).status, 201);
    assert.deepEqual((await ops('checksum', { query: { path: `${dir}/back\\slash.txt` } })).body, sum.body);
    const type = await ops('file', { query: { path } });
    assert.equal(type.status, 200);
    assert.match(type.body.output, /text/);
    const st = await ops('stat', { query: { path, dereference: 'false' } });
    assert.deepEqual(Object.keys(st.body.output).sort(), ['atime', 'ctime', 'dev', 'gid', 'ino', 'mode', 'mtime', 'nlink', 'size', 'uid']);
    assert.equal(st.body.output.size, Buffer.byteLength(text));
    assert.equal(st.body.output.mode & 0o170000, 0o100000);
    // The real server's `file -b` describes a missing path with 200; the gateway says 404.
    for (const route of gatewayOnly() ? ['checksum', 'stat'] : ['checksum', 'file', 'stat']) {
      assertRemoteError(await ops(route, { query: { path: `${dir}/missing` } }), 404, 'No such file or directory');
    }
  });
});

void describe('ops: upload and download', () => {
  void it('round-trips every byte value, an empty file and a UTF-8 name with spaces, and overwrites', async () => {
    const all = Buffer.alloc(256 * 40);
    for (let i = 0; i < all.length; i++) all[i] = i % 256;
    const cases: [string, Buffer][] = [['all-bytes.bin', all], ['empty', Buffer.alloc(0)], ['naïve résumé 😀 file.txt', Buffer.from('héllo wörld\n')]];
    for (const [name, bytes] of cases) {
      assert.equal((await upload(dir, name, bytes)).status, 204);
      const d = await download(`${dir}/${name}`);
      assert.equal(d.status, 200);
      assert.equal(d.type, 'application/octet-stream');
      assert.ok(d.bytes.equals(bytes), `${name} differs after the round trip`);
    }
    assert.equal((await upload(dir, 'empty', enc('now full'))).status, 204);
    assert.equal((await download(`${dir}/empty`)).bytes.toString(), 'now full');
    assert.equal((await download(`${dir}/missing`)).status, 404);
  });

  void it('compress and extract with every compression type', async () => {
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/src/inner`, parent: true } });
    await upload(`${dir}/src/inner`, 'payload.txt', enc('payload'));
    for (const compression of ['none', 'bzip2', 'gzip', 'xz']) {
      const archive = `${dir}/src-${compression}.tar`;
      const c = await ops('compress', { method: 'POST', json: { source_path: `${dir}/src`, target_path: archive, dereference: false, compression } });
      assert.equal(c.status, 204, c.text);
      const out = `${dir}/out-${compression}`;
      await ops('mkdir', { method: 'POST', json: { path: out } });
      const x = await ops('extract', { method: 'POST', json: { sourcePath: archive, targetPath: out, compression } });
      assert.equal(x.status, 204, x.text);
      assert.equal((await download(`${out}/src/inner/payload.txt`)).bytes.toString(), 'payload');
    }
    const bad = await ops('compress', { method: 'POST', json: { path: `${dir}/src`, targetPath: `${dir}/z`, compression: 'zip' } });
    assert.equal(bad.status, 400);
  });
});

void describe('ops: chmod, chown, rm, hostile names', () => {
  void it('chmod answers the File after the change; chown to oneself works, to an unknown user is 400', async () => {
    await upload(dir, 'perm.txt', enc('p'));
    const r = await ops('chmod', { method: 'PUT', json: { path: `${dir}/perm.txt`, mode: '640' } });
    assert.equal(r.status, 200);
    assertFile(r.body.output);
    assert.equal(r.body.output.permissions, 'rw-r-----');
    const me = r.body.output.user as string;
    const own = await ops('chown', { method: 'PUT', json: { path: `${dir}/perm.txt`, owner: me, group: r.body.output.group } });
    assert.equal(own.status, 200);
    assert.equal(own.body.output.user, me);
    const stranger = { path: `${dir}/perm.txt`, owner: `nobody-${randomUUID().slice(0, 6)}`, group: r.body.output.group };
    assertRemoteError(await ops('chown', { method: 'PUT', json: stranger }), 400, 'invalid user');
  });

  void it('rm removes recursively (204), then the path is 404', async () => {
    await ops('mkdir', { method: 'POST', json: { path: `${dir}/gone/deeper`, parent: true } });
    assert.equal((await ops('rm', { method: 'DELETE', query: { path: `${dir}/gone` } })).status, 204);
    assert.equal((await ops('ls', { query: { path: `${dir}/gone` } })).status, 404);
    assertRemoteError(await ops('rm', { method: 'DELETE', query: { path: `${dir}/gone` } }), 404, 'No such file or directory');
  });

  void it('hostile names are only names', async () => {
    const marker = `/tmp/f7t-pwned-${randomUUID().slice(0, 8)}`;
    const names = ['; rm -rf ~', '-rf', `$(touch ${marker.replace(/\//g, '_')})`, "quote'\"`back`", 'new\nline'];
    const d = `${dir}/hostile`;
    await ops('mkdir', { method: 'POST', json: { path: d } });
    for (const name of names) {
      const m = await ops('mkdir', { method: 'POST', json: { path: `${d}/${name}` } });
      assert.equal(m.status, 201, m.text);
    }
    assert.equal((await ops('mkdir', { method: 'POST', json: { path: `${d}/$(touch ${marker})`, parent: true } })).status, 201);
    assert.equal((await upload(`${d}/-rf`, '; rm -rf ~', enc('still here'))).status, 204);
    const ls = await ops('ls', { query: { path: d } });
    assert.deepEqual(ls.body.output.map((f: WireFile) => f.name).sort(), [...names, '$(touch '].sort());
    assert.equal((await ops('head', { query: { path: `${d}/-rf/; rm -rf ~` } })).body.output.content, 'still here');
    assert.equal((await ops('stat', { query: { path: marker } })).status, 404);
    assert.equal((await ops('rm', { method: 'DELETE', query: { path: `${d}/-rf` } })).status, 204);
    assert.equal((await ops('ls', { query: { path: `${d}/; rm -rf ~` } })).status, 200);
  });
});

void describe('ops: another user\'s files and the limits', { skip: gatewayOnly() }, () => {
  void it('a file of another user that alice cannot read is 403', async () => {
    const bob = await otherUserAuth();
    const theirs = await scratchDir('bob', bob);
    try {
      assert.equal((await upload(theirs.path, 'secret.txt', enc('top secret'), bob)).status, 204);
      const c = await ops('chmod', { method: 'PUT', json: { path: `${theirs.path}/secret.txt`, mode: '600' }, auth: bob });
      assert.equal(c.status, 200);
      assertRemoteError(await ops('head', { query: { path: `${theirs.path}/secret.txt` } }), 403, 'Permission denied');
      assert.equal((await download(`${theirs.path}/secret.txt`)).status, 403);
      assert.equal((await upload(theirs.path, 'intruder.txt', enc('x'))).status, 403);
      assertRemoteError(await ops('chown', { method: 'PUT', json: { path: `${dir}/text.txt`, owner: 'bob' } }), 403, 'Operation not permitted');
    } finally {
      await theirs.remove();
    }
  });

  void it('413 past max_ops_file_size, 408 past the command time-out', async () => {
    const saved = (await admin('GET', '/settings')).body;
    const limit = 64 * 1024;
    try {
      assert.equal((await admin('PUT', '/settings', { maxOpsFileSize: limit })).status < 300, true);
      const exact = Buffer.alloc(limit, 7);
      assert.equal((await upload(dir, 'exact.bin', exact)).status, 204);
      const tooBig = await upload(dir, 'big.bin', Buffer.alloc(limit + 1, 7));
      assert.deepEqual([tooBig.status, tooBig.body.message], [413, 'File to upload is too large.']);
      assert.ok((await download(`${dir}/exact.bin`)).bytes.equals(exact));
      const view = await ops('view', { query: { path: `${dir}/exact.bin` } });
      assert.deepEqual([view.status, view.body.message], [413, 'Command output exceeded buffer limit.']);
      assert.equal((await ops('view', { query: { path: `${dir}/exact.bin`, size: String(limit / 4) } })).status, 200);
      await ops('compress', { method: 'POST', json: { path: `${dir}/exact.bin`, targetPath: `${dir}/exact.tar`, compression: 'none' } });
      const big = await download(`${dir}/exact.tar`);
      assert.deepEqual([big.status, big.reply?.body.message], [413, 'File to download is too large.']);

      assert.equal((await admin('PUT', '/settings', { commandTimeoutSeconds: 1 })).status < 300, true);
      const slow = await ops('checksum', { query: { path: '/dev/zero' } });
      assert.equal(slow.status, 408);
      assert.match(slow.body.message, /^Remote process failed with exit status:124/);
    } finally {
      await admin('PUT', '/settings', saved);
    }
  });
});
