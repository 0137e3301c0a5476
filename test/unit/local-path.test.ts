/** Local writes of names a server sent stay below the chosen folder (issue 15, finding 2). */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OutsideFolderError, pathInside } from '../../src/common/localPath';

void describe('pathInside', () => {
  void it('joins names and relative paths below the root', () => {
    assert.equal(pathInside('/tmp/dl', 'a.txt'), '/tmp/dl/a.txt');
    assert.equal(pathInside('/tmp/dl/', 'sub/b c.txt'), join('/tmp/dl', 'sub', 'b c.txt'));
    assert.equal(pathInside('/tmp/dl', '..data'), '/tmp/dl/..data');
  });
  void it('refuses anything that resolves outside it, or the root itself', () => {
    for (const rel of ['../x', '../../../etc/passwd', 'a/../../x', '/etc/passwd', '', '.', 'a/..', 'nul\0']) {
      assert.throws(() => pathInside('/tmp/dl', rel), OutsideFolderError, JSON.stringify(rel));
    }
  });
});
