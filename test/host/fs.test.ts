/**
 * Remote files in a real VS Code: `vscode.workspace.fs` on `firecrest://` URIs against the local
 * gateway (or a site's deployment). Contents round-trip byte for byte, listings carry hidden files
 * and links, the create/overwrite flags and the error codes are exact, a failed save leaves the
 * old file, and a change made behind the editor's back is seen by a watcher.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { tarGz } from '../../bench/fs-tar';
import { gatewayOnly, secondUserMissing, target } from '../support/target';
import { extensionApi, firecrestLogText, waitFor } from './support/extension';
import { clearFaults, directOps, setFault, statsOf, tokenFor } from './fs-gateway';
import { routesOf, skipBecause } from './support/apiVersion';

const PROFILE = 'fs-test';
const enc = new TextEncoder();

async function rejectsWith(p: Thenable<unknown>, code: string): Promise<vscode.FileSystemError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof vscode.FileSystemError, `a FileSystemError, got ${String(e)}`);
    assert.equal(e.code, code, `code ${e.code}: ${e.message}`);
    return e;
  }
  assert.fail(`expected ${code}`);
}

describe('remote files (firecrest:// file system)', function () {
  const t = target();
  let client: FirecrestClient;
  let user: string;
  let base: FirecrestUri;
  let provider: vscode.FileSystemProvider | undefined;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });
  const at = (...names: string[]) => uri(base.joinPath(...names));
  const read = (u: vscode.Uri) => vscode.workspace.fs.readFile(u);
  const write = (u: vscode.Uri, data: Uint8Array) => vscode.workspace.fs.writeFile(u, data);

  before(async () => {
    const api = await extensionApi();
    provider = api.fileSystem;
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
    user = (await client.userInfo(t.system)).user.name;
    // Always name the profile: other suites may add connections while this one runs.
    base = FirecrestUri.from({ system: t.system, path: `/home/${user}/fs-test-${randomBytes(4).toString('hex')}`, profile: PROFILE });
    await vscode.workspace.fs.createDirectory(uri(base));
  });

  after(async () => {
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('reads back what it wrote, byte for byte (empty, 1 byte, 1 MiB - 1, every byte value, UTF-8 name)', async () => {
    const every = new Uint8Array(256 * 4).map((_, i) => i % 256);
    const cases: [string, Uint8Array][] = [
      ['empty.bin', new Uint8Array(0)],
      ['one.bin', new Uint8Array([0x2a])],
      ['almost-1MiB.bin', new Uint8Array(randomBytes(1024 * 1024 - 1))],
      ['every-byte.bin', every],
      ['données été 文件 a b.txt', enc.encode('héllo wörld\n')],
    ];
    for (const [name, data] of cases) {
      await write(at(name), data);
      const back = await read(at(name));
      assert.equal(Buffer.compare(Buffer.from(back), Buffer.from(data)), 0, `${name} round-trips`);
      const st = await vscode.workspace.fs.stat(at(name));
      assert.equal(st.type, vscode.FileType.File);
      assert.equal(st.size, data.byteLength, `${name} size`);
    }
    const names = (await vscode.workspace.fs.readDirectory(uri(base))).map(([n]) => n);
    assert.ok(names.includes('données été 文件 a b.txt'), names.join(', '));
    assert.ok(!names.some((n) => n.includes('.firecrest-')), `no temporary file left: ${names.join(', ')}`);
  });

  it('a save is one direct upload and its check: no batch job, no move', async function () {
    const stats = statsOf(t.gateway);
    if (!stats) return skipBecause(this, 'needs the local gateway\'s request counts');
    const f = at('no-job.txt');
    await write(f, enc.encode('first'));
    await stats.reset();
    await write(f, enc.encode('second version\n'));
    const r = routesOf(t);
    assert.equal(await stats.count(new RegExp(r.saveMove)), 0, 'no move or rename');
    assert.equal(await stats.count(/\/transfer\/|POST .*\/compute\/|xfer-internal/), 0, 'no job of any kind');
    assert.equal(await stats.count(new RegExp(r.upload)), 1, 'one upload');
    assert.equal(Buffer.from(await read(f)).toString(), 'second version\n');
  });

  it('a save over a file is two requests, the upload and its check; VS Code\'s look at the saved file lists nothing', async function () {
    const stats = statsOf(t.gateway);
    if (!stats) return skipBecause(this, 'needs the local gateway\'s request counts');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const f = at('two-requests.txt');
    await write(f, enc.encode('first'));
    // As VS Code saves: a look at the file (which lists its folder), the write, a look again.
    const before = await vscode.workspace.fs.stat(f);
    await stats.reset();
    await write(f, enc.encode('the second version, longer\n'));
    const after = await vscode.workspace.fs.stat(f);
    const r = routesOf(t);
    assert.equal(await stats.count(new RegExp(r.files)), 2, 'the upload and its check');
    assert.equal(await stats.count(new RegExp(r.ls)), 1, 'the check is the file\'s own line, no listing of its folder');
    assert.equal(after.size, 'the second version, longer\n'.length);
    assert.ok(after.mtime >= before.mtime);
    // What the save recorded is what a fresh listing says: the next save sees no conflict.
    const listed = (await client.list(t.system, base.path, { showHidden: true })).find((e) => e.name === 'two-requests.txt');
    assert.deepEqual([listed?.size, listed?.mtime], [after.size, after.mtime]);
  });

  it('lists hidden files, links (good and broken) and a folder of 5,000 entries', async () => {
    const dir = base.joinPath('listing');
    await client.mkdir(t.system, dir.path);
    const archive = tarGz([
      { name: '.hidden', data: enc.encode('h') },
      { name: 'plain.txt', data: enc.encode('p') },
      { name: 'sub/' },
      { name: 'sub/inner.txt', data: enc.encode('i') },
      { name: 'many/' },
      ...Array.from({ length: 5000 }, (_, i) => ({ name: `many/e${i}` })),
    ]);
    await client.uploadSmall(t.system, dir.path, 'a.tar.gz', archive);
    await client.extract(t.system, dir.joinPath('a.tar.gz').path, dir.path, { compression: 'gzip' });
    await client.remove(t.system, dir.joinPath('a.tar.gz').path);
    await client.symlink(t.system, dir.joinPath('plain.txt').path, dir.joinPath('to-file').path);
    await client.symlink(t.system, dir.joinPath('sub').path, dir.joinPath('to-dir').path);
    await client.symlink(t.system, dir.joinPath('nowhere').path, dir.joinPath('broken').path);

    const entries = new Map(await vscode.workspace.fs.readDirectory(uri(dir)));
    assert.equal(entries.get('.hidden'), vscode.FileType.File);
    assert.equal(entries.get('plain.txt'), vscode.FileType.File);
    assert.equal(entries.get('sub'), vscode.FileType.Directory);
    assert.equal(entries.get('to-file'), vscode.FileType.SymbolicLink | vscode.FileType.File);
    assert.equal(entries.get('to-dir'), vscode.FileType.SymbolicLink | vscode.FileType.Directory);
    assert.ok((entries.get('broken') ?? 0) & vscode.FileType.SymbolicLink, 'a broken link is listed as a link');
    assert.equal((await vscode.workspace.fs.stat(uri(dir.joinPath('to-dir')))).type, vscode.FileType.SymbolicLink | vscode.FileType.Directory);
    assert.deepEqual((await vscode.workspace.fs.readDirectory(uri(dir.joinPath('to-dir')))).map(([n]) => n), ['inner.txt']);
    assert.equal(Buffer.from(await read(uri(dir.joinPath('to-file')))).toString(), 'p');

    const stats = statsOf(t.gateway);
    await stats?.reset();
    const many = await vscode.workspace.fs.readDirectory(uri(dir.joinPath('many')));
    assert.equal(many.length, 5000);
    assert.ok(many.every(([, type]) => type === vscode.FileType.File));
    if (stats) {
      const ls = await stats.count(new RegExp(routesOf(t).ls));
      assert.equal(ls, 1, 'a folder of 5,000 entries costs one listing');
    }
  });

  it('honours create/overwrite, renames and deletes folders, copies', async () => {
    const f = at('flags.txt');
    await write(f, enc.encode('one'));
    if (provider) {
      await rejectsWith(Promise.resolve(provider.writeFile(at('missing.txt'), enc.encode('x'), { create: false, overwrite: true })), 'FileNotFound');
      await rejectsWith(Promise.resolve(provider.writeFile(f, enc.encode('two'), { create: true, overwrite: false })), 'FileExists');
      await Promise.resolve(provider.writeFile(f, enc.encode('two'), { create: false, overwrite: true }));
      assert.equal(Buffer.from(await read(f)).toString(), 'two');
    }
    // (workspace.fs.writeFile creates missing parents itself; the provider alone must refuse.)
    if (provider) await rejectsWith(Promise.resolve(provider.writeFile(at('no-such-dir', 'x.txt'), enc.encode('x'), { create: true, overwrite: true })), 'FileNotFound');
    await vscode.workspace.fs.createDirectory(at('folder'));
    await rejectsWith(Promise.resolve(provider ? provider.createDirectory(at('folder')) : Promise.reject(vscode.FileSystemError.FileExists())), 'FileExists');
    await rejectsWith(Promise.resolve(provider ? provider.writeFile(at('folder'), enc.encode('x'), { create: true, overwrite: true }) : Promise.reject(vscode.FileSystemError.FileIsADirectory())), 'FileIsADirectory');
    await write(at('folder', 'a.txt'), enc.encode('A'));

    await vscode.workspace.fs.rename(at('folder'), at('renamed'));
    await rejectsWith(vscode.workspace.fs.stat(at('folder')), 'FileNotFound');
    assert.equal(Buffer.from(await read(at('renamed', 'a.txt'))).toString(), 'A');

    await write(at('other.txt'), enc.encode('other'));
    await rejectsWith(vscode.workspace.fs.rename(at('other.txt'), f, { overwrite: false }), 'FileExists');
    await vscode.workspace.fs.rename(at('other.txt'), f, { overwrite: true });
    assert.equal(Buffer.from(await read(f)).toString(), 'other');

    await vscode.workspace.fs.copy(at('renamed'), at('copied'));
    assert.equal(Buffer.from(await read(at('copied', 'a.txt'))).toString(), 'A');
    await vscode.workspace.fs.copy(f, at('copy.txt'));
    assert.equal(Buffer.from(await read(at('copy.txt'))).toString(), 'other');
    await rejectsWith(vscode.workspace.fs.copy(f, at('copy.txt'), { overwrite: false }), 'FileExists');

    if (provider) await assert.rejects(Promise.resolve(provider.delete(at('renamed'), { recursive: false })), vscode.FileSystemError);
    await vscode.workspace.fs.delete(at('renamed'), { recursive: true });
    await rejectsWith(vscode.workspace.fs.stat(at('renamed')), 'FileNotFound');
    assert.equal(Buffer.from(await read(at('copied', 'a.txt'))).toString(), 'A', 'the copy is independent');
  });

  it('refuses files above the direct-transfer limit with a clear message, unless staged transfers are wired in', async () => {
    const api = await extensionApi();
    const limit = (await api.connections.systems(PROFILE)).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 0;
    assert.ok(limit > 0, 'the system reports its direct-transfer limit');
    const big = new Uint8Array(randomBytes(limit + 1));
    const saved = await Promise.resolve(write(at('big.bin'), big)).then(() => true, (e: unknown) => e);
    if (saved === true) {
      // Staged transfers are plugged into the provider (RemoteFileSystemOptions.largeFiles).
      assert.equal(Buffer.compare(Buffer.from(await read(at('big.bin'))), Buffer.from(big)), 0);
      return;
    }
    assert.ok(saved instanceof vscode.FileSystemError && saved.code === 'Unavailable', String(saved));
    assert.match(saved.message, /file too large for direct transfer \(.+ MiB.* > .+ MiB limit\); staged transfers come with a later update/);
    // Made on the cluster (compresses to almost nothing), then read through the provider.
    await client.uploadSmall(t.system, base.path, 'big.tar.gz', tarGz([{ name: 'big-remote.bin', data: new Uint8Array(limit + 1) }]));
    await client.extract(t.system, base.joinPath('big.tar.gz').path, base.path, { compression: 'gzip' });
    const err = await rejectsWith(read(at('big-remote.bin')), 'Unavailable');
    assert.match(err.message, /file too large for direct transfer/);
  });

  it('raises FileNotFound for a missing path, quietly for the paths VS Code probes', async () => {
    await rejectsWith(vscode.workspace.fs.stat(at('does-not-exist.txt')), 'FileNotFound');
    await rejectsWith(read(at('does-not-exist.txt')), 'FileNotFound');
    await rejectsWith(vscode.workspace.fs.readDirectory(at('nope')), 'FileNotFound');
    await rejectsWith(vscode.workspace.fs.stat(at('.vscode', 'settings.json')), 'FileNotFound');
    const api = await extensionApi();
    const errors = firecrestLogText(api).split('\n').filter((l) => /\berror\b/i.test(l) && l.includes('.vscode'));
    assert.deepEqual(errors, [], 'probes are not logged as errors');
  });

  it('raises NoPermissions for another user\'s file', async function () {
    const bob = t.secondUser;
    if (!bob) return skipBecause(this, secondUserMissing(t) || undefined);
    const token = await tokenFor(t.tokenUrl, bob.clientId, bob.clientSecret);
    const name = `fs-test-secret-${randomBytes(3).toString('hex')}.txt`;
    const asBob = directOps(t, token);
    const home = `/home/${bob.user ?? await asBob.whoami()}`;
    await asBob.upload(home, name, enc.encode('secret'));
    await asBob.chmod(`${home}/${name}`, '600');
    try {
      const other = uri(FirecrestUri.from({ system: t.system, path: `${home}/${name}`, profile: PROFILE }));
      await rejectsWith(read(other), 'NoPermissions');
    } finally {
      await asBob.rm(`${home}/${name}`).catch(() => undefined);
    }
  });

  // A save is one direct upload (no move since issue 17): its failure is the one to survive.
  for (const [what, route] of [
    ['the upload', 'upload'],
  ] as const) {
    it(`keeps the old content and the editor dirty when ${what} fails during a save`, async function () {
      if (gatewayOnly()) return skipBecause(this, gatewayOnly() || undefined);
      const file = at(`save-${what.split(' ')[1]}.txt`);
      await write(file, enc.encode('old content\n'));
      const doc = await vscode.workspace.openTextDocument(file);
      const edit = new vscode.WorkspaceEdit();
      edit.insert(file, new vscode.Position(0, 0), 'new ');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.ok(doc.isDirty);
      await setFault(t.gateway, { error: { next: 20, statuses: [500], match: routesOf(t)[route] } });
      let saved: boolean;
      try {
        saved = await doc.save();
      } finally {
        await clearFaults(t.gateway);
      }
      assert.equal(saved, false, 'the save reports failure');
      assert.ok(doc.isDirty, 'the editor stays dirty');
      assert.equal(Buffer.from(await client.downloadSmall(t.system, FirecrestUri.parse(file).path)).toString(), 'old content\n');
      const names = (await vscode.workspace.fs.readDirectory(uri(base))).map(([n]) => n);
      assert.ok(!names.some((n) => n.includes('.firecrest-')), `no temporary file left: ${names.join(', ')}`);
      // Once the fault is gone the same editor saves normally.
      assert.ok(await doc.save(), 'a later save succeeds');
      assert.equal(Buffer.from(await read(file)).toString(), 'new old content\n');
    });
  }

  it('reports a change made on the cluster behind the editor\'s back to a watcher', async () => {
    const dir = base.joinPath('watched');
    await vscode.workspace.fs.createDirectory(uri(dir));
    const provider = (await extensionApi()).fileSystem as unknown as { poller?: { polledFolders(): { toString(): string }[] } } | undefined;
    const polled = () => (provider?.poller?.polledFolders() ?? []).map(String);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(uri(dir), '**'));
    const seen: string[] = [];
    watcher.onDidCreate((u) => seen.push(u.path));
    try {
      await vscode.workspace.fs.readDirectory(uri(dir)); // "expanded in the Explorer"
      // The watch reaches the provider on its own schedule: the file is made once the folder is polled.
      await waitFor('the watched folder to be polled', () => polled().includes(dir.toString()), 30_000);
      const token = await tokenFor(t.tokenUrl, t.clientId, t.clientSecret);
      await directOps(t, token).upload(dir.path, 'behind-your-back.txt', enc.encode('surprise'));
      await waitFor('the created file to be reported', () => seen.includes(dir.joinPath('behind-your-back.txt').path), 30_000);
    } finally {
      watcher.dispose();
    }
    // Nothing watches the folder any more: it is not polled again. Other watches may remain (VS
    // Code watches the files still open in editors from earlier tests), so the gateway's request
    // count is only checked when the provider polls nothing at all.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const stillPolled = () => polled().filter((f) => f === dir.toString() || f.startsWith(`${dir.toString()}/`));
    await waitFor('the folder no longer polled', () => stillPolled().length === 0, 30_000);
    const stats = statsOf(t.gateway);
    if (stats && polled().length === 0) {
      await stats.reset();
      await new Promise((r) => setTimeout(r, 8000));
      const lists = await stats.count(new RegExp(routesOf(t).ls));
      assert.equal(lists, 0, 'no listing while nothing is watched');
    }
  });
});
