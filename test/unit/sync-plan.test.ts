import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scanLocal, slicer, type LocalFile } from '../../src/core/sync/localTree';
import { emptyManifest, planSync, type Manifest, type RemoteFile } from '../../src/core/sync/plan';

const file = (rel: string, size: number, mtimeMs = 1_000_000): LocalFile => ({ rel, kind: 'file', size, mtimeMs, executable: false });
const remote = (rel: string, size: number, mtime = 2_000_000): RemoteFile => ({ rel, kind: 'file', size, mtime });
const synced = (size: number): Manifest['files'][string] => ({ size, mtimeMs: 1_000_000, kind: 'file', remoteSize: size, remoteMtime: 2_000_000 });

void describe('sync plan', () => {
  void it('sends new and changed files, leaves unchanged ones, and never overwrites a remote change', () => {
    const m: Manifest = { ...emptyManifest('sys:/p'), files: { same: synced(3), edited: synced(3), theirs: synced(3), both: synced(3), gone: synced(3) } };
    const local = new Map([file('new', 5), file('same', 3), file('edited', 4), file('theirs', 3), file('both', 9), file('stranger', 1)].map((f) => [f.rel, f]));
    const rem = new Map([remote('same', 3), remote('edited', 3), remote('theirs', 7, 3_000_000), remote('both', 8, 3_000_000), remote('stranger', 1), remote('gone', 3)].map((r) => [r.rel, r]));
    const plan = planSync(local, rem, m);
    assert.deepEqual(plan.upload.map((i) => i.rel), ['new']);
    assert.deepEqual(plan.replace.map((i) => i.rel), ['edited']);
    assert.deepEqual(plan.conflicts.map((c) => [c.rel, c.reason]), [['both', 'both changed'], ['stranger', 'not from a sync']]);
    assert.deepEqual(plan.remoteChanged, ['theirs']);
    assert.deepEqual(plan.delete, ['gone']);
    assert.equal(plan.unchanged, 1);
    assert.equal(plan.bytes, 9);
  });

  void it('repairs what a cut-off sync was sending without calling it a conflict', () => {
    const m: Manifest = { ...emptyManifest('sys:/p'), files: { a: synced(3) }, pending: ['a', 'b'] };
    const local = new Map([file('a', 4, 5), file('b', 2)].map((f) => [f.rel, f]));
    const rem = new Map([remote('a', 1, 9_000_000), remote('b', 1, 9_000_000)].map((r) => [r.rel, r]));
    const plan = planSync(local, rem, m);
    assert.deepEqual(plan.conflicts, []);
    assert.deepEqual(plan.replace.map((i) => i.rel).sort(), ['a', 'b']);
  });

  void it("a deleted remote file is sent again; a remote folder in a file's place is a conflict", () => {
    const m: Manifest = { ...emptyManifest('sys:/p'), files: { a: synced(3) } };
    const local = new Map([file('a', 3), file('d', 1)].map((f) => [f.rel, f]));
    const rem = new Map<string, RemoteFile>([['d', { rel: 'd', kind: 'dir', size: 4096, mtime: 0 }]]);
    const plan = planSync(local, rem, m);
    assert.deepEqual(plan.upload.map((i) => i.rel), ['a']);
    assert.deepEqual(plan.conflicts.map((c) => c.rel), ['d']);
  });
});

void describe('local scan', () => {
  void it('honours nested .gitignore files and exclude patterns, keeps exec bits, skips symlinks that lead outside', async () => {
    const root = mkdtempSync(join(tmpdir(), 'f7t-scan-'));
    const outside = mkdtempSync(join(tmpdir(), 'f7t-outside-'));
    try {
      mkdirSync(join(root, 'a', 'tmp'), { recursive: true });
      mkdirSync(join(root, '.git'));
      writeFileSync(join(root, '.git', 'HEAD'), 'ref');
      writeFileSync(join(root, '.gitignore'), '*.log\n');
      writeFileSync(join(root, 'a', '.gitignore'), 'tmp/\n');
      writeFileSync(join(root, 'a', 'tmp', 'x'), 'x');
      writeFileSync(join(root, 'a', 'keep.txt'), 'k');
      writeFileSync(join(root, 'run.log'), 'l');
      writeFileSync(join(root, 'data.csv'), 'd');
      writeFileSync(join(root, 'go.sh'), '#!/bin/sh\n');
      chmodSync(join(root, 'go.sh'), 0o755);
      writeFileSync(join(outside, 'secret'), 's');
      symlinkSync(join(outside, 'secret'), join(root, 'leak'));
      symlinkSync('a/keep.txt', join(root, 'alias'));
      const scan = await scanLocal(root, { exclude: ['*.csv'] });
      assert.deepEqual([...scan.files.keys()].sort(), ['.gitignore', 'a/.gitignore', 'a/keep.txt', 'alias', 'go.sh']);
      assert.equal(scan.files.get('go.sh')?.executable, true);
      assert.equal(scan.files.get('alias')?.kind, 'link');
      assert.deepEqual(scan.skipped.map((s) => s.rel), ['leak']);
      const all = await scanLocal(root, { useGitignore: false });
      assert.ok(all.files.has('run.log') && all.files.has('a/tmp/x') && !all.files.has('.git/HEAD'));
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  void it('scans a folder of 2,000 entries in path order, giving the event loop turns while it works', async () => {
    const root = mkdtempSync(join(tmpdir(), 'f7t-scan-'));
    try {
      for (let d = 0; d < 20; d++) {
        mkdirSync(join(root, `d ${d}`));
        for (let f = 0; f < 100; f++) writeFileSync(join(root, `d ${d}`, `f${f}.txt`), `${d}/${f}`);
      }
      let turns = 0;
      const ticking = setInterval(() => { turns++; }, 0);
      const scan = await scanLocal(root);
      clearInterval(ticking);
      const keys = [...scan.files.keys()];
      assert.equal(keys.length, 2000);
      assert.deepEqual(keys, [...keys].sort());
      // 2,000 entries in slices of 256: the timer ran between slices.
      assert.ok(turns >= 1, `the event loop had ${turns} turns during the scan`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  void it('slicer: a turn of the event loop every N units, none in between', () => {
    const slice = slicer(3);
    assert.equal(slice(), undefined);
    assert.equal(slice(), undefined);
    assert.ok(slice() instanceof Promise);
    assert.equal(slice(), undefined);
    assert.ok(slice(5) instanceof Promise);
  });
});
