import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { PackSync, x as extract } from 'tar';
import { archiveOf } from '../../src/core/sync/archive';
import { scanLocal } from '../../src/core/sync/localTree';
import { makeProject } from '../support/syncProject';

/** What node-tar's own packer writes for the same files, in portable mode. */
function packSync(root: string, rels: string[]): Buffer {
  const pack = new PackSync({ cwd: root, portable: true, follow: false, noDirRecurse: true });
  const out: Buffer[] = [];
  pack.on('data', (chunk: Buffer) => out.push(chunk));
  for (const rel of rels) pack.add(rel);
  pack.end();
  return Buffer.concat(out);
}

void describe('sync archive', () => {
  void it('is byte for byte the tar node-tar packs: long and non-ASCII names, links, modes, sizes on and across block and batch bounds', async () => {
    const root = mkdtempSync(join(tmpdir(), 'f7t-archive-'));
    try {
      makeProject(root, 0);
      const deep = join(root, 'a'.repeat(60), 'b'.repeat(60));
      mkdirSync(deep, { recursive: true });
      writeFileSync(join(deep, `${'c'.repeat(90)}.txt`), 'a path longer than a ustar header holds\n');
      writeFileSync(join(root, 'empty'), '');
      writeFileSync(join(root, 'one block'), Buffer.alloc(512, 1));
      writeFileSync(join(root, 'big.bin'), Buffer.alloc(1536 * 1024 + 7, 2));
      writeFileSync(join(root, 'group-writable'), 'x');
      chmodSync(join(root, 'group-writable'), 0o664);
      writeFileSync(join(root, 'private'), 'y');
      chmodSync(join(root, 'private'), 0o400);
      symlinkSync('mod1/sub1/file1.py', join(root, 'link to a file'));
      symlinkSync('résumé/ñ', join(root, 'link with a non-ASCII target'));
      const files = [...(await scanLocal(root, {})).files.values()];
      assert.ok(files.some((f) => f.kind === 'link'));
      const ours = gunzipSync(await archiveOf(root, files));
      assert.ok(ours.equals(packSync(root, files.map((f) => f.rel))), 'the same bytes as node-tar');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  void it('describes each file as it is when packed, refuses one grown past the archive\'s limit, and never reads through a link or waits on a FIFO that replaced a file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'f7t-archive-'));
    const out = mkdtempSync(join(tmpdir(), 'f7t-archive-out-'));
    try {
      writeFileSync(join(root, 'grows'), 'short\n');
      writeFileSync(join(root, 'shrinks'), 'a longer first version\n');
      writeFileSync(join(root, 'swapped'), 'a file\n');
      writeFileSync(join(root, 'secret'), 'outside the folder\n');
      const files = [...(await scanLocal(root, {})).files.values()];
      writeFileSync(join(root, 'grows'), 'grew after the scan\n');
      writeFileSync(join(root, 'shrinks'), 'short\n');
      const archive = await archiveOf(root, files.filter((f) => f.rel !== 'swapped' && f.rel !== 'secret'));
      writeFileSync(join(out, 'a.tar.gz'), archive);
      extract({ sync: true, file: join(out, 'a.tar.gz'), cwd: out });
      assert.equal(readFileSync(join(out, 'grows'), 'utf8'), 'grew after the scan\n');
      assert.equal(readFileSync(join(out, 'shrinks'), 'utf8'), 'short\n');
      // Grown past what may travel in the archive: refused, to go with the large files next time.
      writeFileSync(join(root, 'grows'), Buffer.alloc(4096, 1));
      await assert.rejects(archiveOf(root, files.filter((f) => f.rel === 'grows'), 1024), /grows grew to 4096 bytes since the folder was scanned/);

      rmSync(join(root, 'swapped'));
      symlinkSync(join(root, 'secret'), join(root, 'swapped'));
      await assert.rejects(archiveOf(root, files.filter((f) => f.rel === 'swapped')), /ELOOP|no longer a regular file/);
      // A FIFO in a file's place is refused at once rather than waited on.
      rmSync(join(root, 'secret'));
      execFileSync('/usr/bin/mkfifo', [join(root, 'secret')]);
      await assert.rejects(archiveOf(root, files.filter((f) => f.rel === 'secret')), /no longer a regular file/);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });
});
