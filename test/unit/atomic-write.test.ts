/**
 * The gateway's atomic write program (gateway/src/fs/atomic-write.ts), run for real: a writer cut
 * off mid-way (its stdin closed early, as when the gateway is killed) leaves the target as it was;
 * a complete write replaces it whole and keeps its mode; a copy does the same.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { atomicCopyArgv, atomicWriteArgv } from '../../gateway/src/fs/atomic-write';

const dir = mkdtempSync(join(tmpdir(), 'f7t-atomic-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(argv: string[], input: Buffer): { status: number | null; stderr: string } {
  const r = spawnSync(argv[0], argv.slice(1), { input, encoding: 'buffer' });
  return { status: r.status, stderr: r.stderr.toString() };
}

void describe('atomic write', () => {
  void it('a write cut short leaves the old content and no temporary file', () => {
    const target = join(dir, 'cut.txt');
    writeFileSync(target, 'old');
    const r = run(atomicWriteArgv(target, 1000), Buffer.alloc(400, 0x61));
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /short write: 400 of 1000 bytes arrived/);
    assert.equal(readFileSync(target, 'utf8'), 'old');
    assert.deepEqual(readdirSync(dir).filter((n) => n.includes('f7t-')), []);
  });

  void it('a whole write replaces the file and keeps its mode; a new file gets the umask mode', () => {
    const target = join(dir, 'whole.txt');
    writeFileSync(target, 'old');
    chmodSync(target, 0o640);
    assert.equal(run(atomicWriteArgv(target, 3), Buffer.from('new')).status, 0);
    assert.equal(readFileSync(target, 'utf8'), 'new');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    const fresh = join(dir, 'fresh.txt');
    assert.equal(run(atomicWriteArgv(fresh, 2), Buffer.from('hi')).status, 0);
    assert.equal(statSync(fresh).mode & 0o777, 0o666 & ~process.umask());
  });

  void it('a folder as target is refused in dd\'s words; a missing folder too', () => {
    const r = run(atomicWriteArgv(dir, 1), Buffer.from('x'));
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /Is a directory/);
    const missing = run(atomicWriteArgv(join(dir, 'no', 'such.txt'), 1), Buffer.from('x'));
    assert.match(missing.stderr, /No such file or directory/);
  });

  void it('a copy over a file replaces it whole', () => {
    const src = join(dir, 'src.bin');
    const dst = join(dir, 'dst.bin');
    writeFileSync(src, Buffer.alloc(3 * 1024 * 1024, 7));
    writeFileSync(dst, 'old');
    assert.equal(run(atomicCopyArgv(['-R'], src, dst), Buffer.alloc(0)).status, 0);
    assert.deepEqual(readFileSync(dst), readFileSync(src));
  });
});
