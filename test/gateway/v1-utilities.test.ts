/**
 * v1 utilities over real HTTP, as the user: every route's happy path (contents round-trip, statuses
 * 200/201/204) and its errors (400 + the explanatory X-* header, sanitiser, 413, time-out).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, ftruncateSync, openSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, gw, t, token } from './support';
import { scratch, uploadFile, v1 } from './v1-support';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;

before(async () => {
  ({ path: dir, remove: cleanup } = await scratch('util'));
});
after(async () => cleanup());

const q = (targetPath: string, extra: Record<string, string> = {}) => ({ query: { targetPath, ...extra } });

async function otherAuth(): Promise<string> {
  const g = gw();
  const other = (g.clients ?? []).find((c) => c.user !== g.user);
  if (!other) throw new Error('no second client');
  return `Bearer ${await token(other.clientId, other.clientSecret)}`;
}

void describe('v1 utilities: files', () => {
  void it('upload (201) then download returns the same bytes as an attachment', async () => {
    const content = 'line1\nline2 apple\nline3\nline4 apple pie\n';
    const up = await uploadFile(dir, 'a.txt', content);
    assert.equal(up.status, 201, up.text);
    assert.deepEqual(up.body, { description: 'File upload successful', output: '' });
    const res = await fetch(`${t.url}/utilities/download?sourcePath=${encodeURIComponent(`${dir}/a.txt`)}`, {
      headers: { authorization: `Bearer ${await token()}`, 'x-machine-name': t.system },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename=a\.txt/);
    assert.equal(await res.text(), content);
  });

  void it('upload over UTILITIES_MAX_FILE_SIZE is 413', async () => {
    const params = await v1('/status/parameters', { machine: null });
    const mb = Number((params.body.out.utilities as { name: string; value: string }[]).find((e) => e.name === 'UTILITIES_MAX_FILE_SIZE')?.value);
    const r = await uploadFile(dir, 'big.bin', new Uint8Array(Math.ceil(mb * 1024 * 1024) + 10));
    assert.equal(r.status, 413);
  });

  void it('ls lists entries (LsEntry shape), hidden only with showhidden, recursive names with sub-paths', async () => {
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/ls/sub`, p: '' } });
    await uploadFile(`${dir}/ls`, '.hidden', 'h');
    await uploadFile(`${dir}/ls/sub`, 'deep.txt', 'deep');
    const plain = await v1('/utilities/ls', q(`${dir}/ls`));
    assert.equal(plain.status, 200);
    assert.equal(plain.body.description, 'List of contents');
    assert.deepEqual((plain.body.output as { name: string }[]).map((e) => e.name), ['sub']);
    const e = plain.body.output[0];
    assert.deepEqual(Object.keys(e).sort(), ['group', 'last_modified', 'link_target', 'name', 'permissions', 'size', 'type', 'user']);
    assert.equal(e.type, 'd');
    assert.equal(typeof e.size, 'string');
    assert.equal(e.link_target, '');
    const hidden = await v1('/utilities/ls', q(`${dir}/ls`, { showhidden: 'True' }));
    assert.deepEqual((hidden.body.output as { name: string }[]).map((x) => x.name).sort(), ['.hidden', 'sub']);
    const rec = await v1('/utilities/ls', q(`${dir}/ls`, { recursive: 'true' }));
    assert.ok((rec.body.output as { name: string }[]).some((x) => x.name === 'sub/deep.txt'));
    const numeric = await v1('/utilities/ls', q(`${dir}/ls`, { numericUid: 'yes' }));
    assert.match(numeric.body.output[0].user as string, /^\d+$/);
  });

  void it('ls of a missing path is 400 + X-Invalid-Path; invalid chars and no path are 400 with the field named', async () => {
    const r = await v1('/utilities/ls', q(`${dir}/missing`));
    assert.equal(r.status, 400);
    assert.ok(r.headers.has('x-invalid-path'));
    assert.equal(r.body.description, 'Error on ls operation');
    const bad = await v1('/utilities/ls', q(`${dir}/a;b`));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "'targetPath' has invalid char");
    const none = await v1('/utilities/ls');
    assert.equal(none.status, 400);
    assert.equal(none.body.error, "'targetPath' not specified");
  });

  void it('mkdir (p present) 201, existing -> X-Exists; without p a missing parent -> X-Invalid-Path', async () => {
    const r = await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/m/n`, p: 'false' } });
    assert.equal(r.status, 201);
    const again = await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/m/n` } });
    assert.equal(again.status, 400);
    assert.ok(again.headers.has('x-exists'));
    const noParent = await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/x/y` } });
    assert.equal(noParent.status, 400);
    assert.ok(noParent.headers.has('x-invalid-path'));
  });

  void it('rename, copy, symlink, rm (DELETE with a form body, 204)', async () => {
    await uploadFile(dir, 'r.txt', 'rename me');
    assert.equal((await v1('/utilities/rename', { method: 'PUT', form: { sourcePath: `${dir}/r.txt`, targetPath: `${dir}/r2.txt` } })).status, 200);
    const cp = await v1('/utilities/copy', { method: 'POST', form: { sourcePath: `${dir}/r2.txt`, targetPath: `${dir}/r3.txt` } });
    assert.equal(cp.status, 201);
    const ln = await v1('/utilities/symlink', { method: 'POST', form: { targetPath: `${dir}/r3.txt`, linkPath: `${dir}/link` } });
    assert.equal(ln.status, 201);
    const ls = await v1('/utilities/ls', q(`${dir}/link`));
    assert.equal(ls.body.output[0].type, 'l');
    assert.equal(ls.body.output[0].link_target, `${dir}/r3.txt`);
    const view = await v1('/utilities/view', q(`${dir}/link`));
    assert.equal(view.body.output, 'rename me');
    const rm = await v1('/utilities/rm', { method: 'DELETE', form: { targetPath: `${dir}/r3.txt` } });
    assert.equal(rm.status, 204);
    assert.equal(rm.text, '');
    const gone = await v1('/utilities/stat', q(`${dir}/r3.txt`));
    assert.equal(gone.status, 400);
    const missingSrc = await v1('/utilities/copy', { method: 'POST', form: { sourcePath: `${dir}/nope`, targetPath: `${dir}/x` } });
    assert.equal(missingSrc.status, 400);
    assert.ok(missingSrc.headers.has('x-not-found') || missingSrc.headers.has('x-invalid-path'));
  });

  void it('chmod answers the verbose text; an invalid mode is X-Invalid-Mode; chown needs owner or group', async () => {
    await uploadFile(dir, 'c.txt', 'c');
    const r = await v1('/utilities/chmod', { method: 'PUT', form: { targetPath: `${dir}/c.txt`, mode: '700' } });
    assert.equal(r.status, 200);
    assert.match(r.body.output as string, /mode of .* changed from 0644 \(rw-r--r--\) to 0700 \(rwx------\)/);
    const st = await v1('/utilities/stat', q(`${dir}/c.txt`));
    assert.equal((st.body.output.mode as number) & 0o777, 0o700);
    const bad = await v1('/utilities/chmod', { method: 'PUT', form: { targetPath: `${dir}/c.txt`, mode: '9z9' } });
    assert.equal(bad.status, 400);
    assert.ok(bad.headers.has('x-invalid-mode'));
    const none = await v1('/utilities/chown', { method: 'PUT', form: { targetPath: `${dir}/c.txt` } });
    assert.equal(none.status, 400);
    assert.equal(none.body.error, 'group or owner must be set');
    const who = (await v1('/utilities/whoami', { query: { groups: 'true' } })).body.output;
    const own = await v1('/utilities/chown', { method: 'PUT', form: { targetPath: `${dir}/c.txt`, owner: who.user.name, group: who.group.name } });
    assert.equal(own.status, 200);
    const badOwner = await v1('/utilities/chown', { method: 'PUT', form: { targetPath: `${dir}/c.txt`, owner: 'no-such-user-x' } });
    assert.equal(badOwner.status, 400);
    assert.ok(badOwner.headers.has('x-invalid-owner'));
  });

  void it('file, stat, checksum; checksum of a directory is X-A-Directory', async () => {
    const content = 'checksum me\n';
    await uploadFile(dir, 'k.txt', content);
    const f = await v1('/utilities/file', q(`${dir}/k.txt`));
    assert.equal(f.status, 200);
    assert.match(f.body.output as string, /text/);
    const st = await v1('/utilities/stat', q(`${dir}/k.txt`));
    assert.deepEqual(Object.keys(st.body.output).sort(), ['atime', 'ctime', 'dev', 'gid', 'ino', 'mode', 'mtime', 'nlink', 'size', 'uid']);
    assert.equal(st.body.output.size, content.length);
    const sum = await v1('/utilities/checksum', q(`${dir}/k.txt`));
    assert.equal(sum.body.output, createHash('sha256').update(content).digest('hex'));
    const d = await v1('/utilities/checksum', q(dir));
    assert.equal(d.status, 400);
    assert.ok(d.headers.has('x-a-directory'));
  });

  void it('head/tail with lines, bytes, skip flags and grep; both lines and bytes is 400; no match is 404', async () => {
    await uploadFile(dir, 'h.txt', '1\n2 apple\n3\n4 apple\n5\n');
    const head = await v1('/utilities/head', q(`${dir}/h.txt`, { lines: '2' }));
    assert.equal(head.body.output, '1\n2 apple\n');
    const skip = await v1('/utilities/head', q(`${dir}/h.txt`, { lines: '2', skip_ending: 'true' }));
    assert.equal(skip.body.output, '1\n2 apple\n3\n');
    const bytes = await v1('/utilities/tail', q(`${dir}/h.txt`, { bytes: '2' }));
    assert.equal(bytes.body.output, '5\n');
    const from = await v1('/utilities/tail', q(`${dir}/h.txt`, { lines: '4', skip_beginning: '1' }));
    assert.equal(from.body.output, '4 apple\n5\n');
    const grep = await v1('/utilities/head', q(`${dir}/h.txt`, { grep: 'apple' }));
    assert.equal(grep.body.output, '2 apple\n4 apple\n');
    const both = await v1('/utilities/head', q(`${dir}/h.txt`, { lines: '1', bytes: '1' }));
    assert.equal(both.status, 400);
    assert.equal(both.body.error, "Can not specify both 'bytes' and 'lines'");
    const miss = await v1('/utilities/tail', q(`${dir}/h.txt`, { grep: 'pear' }));
    assert.equal(miss.status, 404);
    assert.equal(miss.headers.get('x-not-found'), 'pattern not found');
  });

  void it('compress (201) and extract with type (201) round-trip a folder', async () => {
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/tree/in`, p: '1' } });
    await uploadFile(`${dir}/tree/in`, 'x.txt', 'x content');
    const c = await v1('/utilities/compress', { method: 'POST', form: { sourcePath: `${dir}/tree/in`, targetPath: `${dir}/tree.tar.gz` } });
    assert.equal(c.status, 201, c.text);
    await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: `${dir}/out` } });
    // Upstream takes `type` only with the dot (.zip .tar .bz2 .gz .tgz): anything else is refused.
    for (const type of ['gzip', 'tar.gz', 'gz']) {
      const refused = await v1('/utilities/extract', { method: 'POST', form: { sourcePath: `${dir}/tree.tar.gz`, targetPath: `${dir}/out`, type } });
      assert.equal(refused.status, 400, type);
      assert.equal(refused.body.error, 'Unsupported file format');
    }
    const x = await v1('/utilities/extract', { method: 'POST', form: { sourcePath: `${dir}/tree.tar.gz`, targetPath: `${dir}/out`, type: '.gz', extension: '.tar.gz' } });
    assert.equal(x.status, 201, x.text);
    assert.equal((await v1('/utilities/view', q(`${dir}/out/in/x.txt`))).body.output, 'x content');
  });

  void it('whoami: the name, or user/group/groups with string ids', async () => {
    const plain = await v1('/utilities/whoami');
    assert.equal(plain.body.description, 'User information');
    assert.equal(typeof plain.body.output, 'string');
    const g = await v1('/utilities/whoami', { query: { groups: 'true' } });
    assert.equal(g.body.output.user.name, plain.body.output);
    assert.match(g.body.output.user.id as string, /^\d+$/);
    assert.ok(Array.isArray(g.body.output.groups));
  });

  void it('a command that outlives UTILITIES_TIMEOUT is 400 + X-Timeout with the exact text', async () => {
    // The local gateway's time-out is shortened for the test (a deployment's own, often 5 s, stands).
    const before = gatewayOnly() ? undefined : ((await admin('GET', '/settings')).body as { commandTimeoutSeconds: number }).commandTimeoutSeconds;
    if (before !== undefined) await admin('PUT', '/settings', { commandTimeoutSeconds: 1 });
    try {
      const r = await v1('/utilities/checksum', q('/dev/zero'));
      assert.equal(r.status, 400);
      assert.ok(r.headers.has('x-timeout'));
      assert.equal(r.body.error, 'Command has finished with timeout signal');
    } finally {
      if (before !== undefined) await admin('PUT', '/settings', { commandTimeoutSeconds: before });
    }
  });

  void it('view and download of a file over UTILITIES_MAX_FILE_SIZE are 400 + X-Size-Limit', { skip: gatewayOnly() }, async () => {
    // Written locally (the suite runs next to the gateway): a sparse 6 MiB file readable by all.
    const path = `${dir}/large.bin`;
    const fd = openSync(path, 'w', 0o644);
    try {
      ftruncateSync(fd, 6 * 1024 * 1024);
    } finally {
      closeSync(fd);
    }
    const view = await v1('/utilities/view', q(path));
    assert.equal(view.status, 400);
    assert.equal(view.body.description, 'Failed to view file content');
    assert.ok(view.headers.has('x-size-limit'));
    const down = await v1('/utilities/download', { query: { sourcePath: path } });
    assert.equal(down.status, 400);
    assert.ok(down.headers.has('x-size-limit'));
  });

  void it("another user's private file is X-Permission-Denied", { skip: gatewayOnly() }, async () => {
    await uploadFile(dir, 'secret.txt', 'secret');
    await v1('/utilities/chmod', { method: 'PUT', form: { targetPath: `${dir}/secret.txt`, mode: '600' } });
    const r = await v1('/utilities/view', { ...q(`${dir}/secret.txt`), auth: await otherAuth() });
    assert.equal(r.status, 400);
    assert.ok(r.headers.has('x-permission-denied'), JSON.stringify(r.body));
  });
});
