/** Where a whitespace-free symlink to a path with whitespace goes (upstream v2's checksum and staging). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasWhitespace, plainAlias, plainFolderAbove } from '../../src/core/v2/plainAlias';
import { NotSupportedError } from '../../src/core/errors';

void describe('plain aliases', () => {
  void it('sees whitespace as Python str.split() does', () => {
    for (const p of ['/a b', '/a\tb', '/a\nb', '/a\u00a0b', '/a\u3000b', '/a\u001fb', '/a\u0085b']) assert.ok(hasWhitespace(p), JSON.stringify(p));
    for (const p of ['/a_b', "/it's", '/back\\slash', '/données']) assert.ok(!hasWhitespace(p), p);
  });

  void it('puts the alias in the nearest folder above whose path has no whitespace, never in /', () => {
    assert.equal(plainFolderAbove('/home/alice/My Project/run notes.txt'), '/home/alice');
    assert.equal(plainFolderAbove('/home/alice/data/run notes.txt'), '/home/alice/data');
    assert.equal(plainFolderAbove('/home/alice/A B/c/d e/f'), '/home/alice');
    assert.equal(plainFolderAbove('/My Project/x'), undefined);
    assert.equal(plainFolderAbove('/x y'), undefined);
  });

  void it('refuses in words when no symlink can be made, and removes the one it made once', async () => {
    const calls: string[] = [];
    const ops = {
      symlink: async (_s: string, target: string, link: string) => { calls.push(`ln ${target} ${link}`); if (link.startsWith('/ro/')) throw new Error('Permission denied'); },
      rm: async (_s: string, path: string) => { calls.push(`rm ${path}`); },
    };
    await assert.rejects(plainAlias(ops, 'c', '/ro/A B/f', 'The checksum'), (e: unknown) => e instanceof NotSupportedError && /could not be made \(Permission denied\)/.test(e.message));
    await assert.rejects(plainAlias(ops, 'c', '/A B/f', 'The checksum'), (e: unknown) => e instanceof NotSupportedError && /no folder above it/.test(e.message));
    const a = await plainAlias(ops, 'c', '/home/u/A B/f', 'The checksum');
    assert.match(a.path, /^\/home\/u\/\.f7t-alias-[0-9a-f]{16}$/);
    await a.release();
    await a.release();
    assert.equal(calls.filter((c) => c.startsWith('rm')).length, 1);
  });
});
