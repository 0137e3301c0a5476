// Search on Cluster's match file as a hostile server could serve it (security review 3, findings 10
// and 11): a record that never ends is read in one pass and dropped, not kept and rescanned; a
// result outside the searched folder is left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { insideFolder, MAX_LINE_CHARS, SearchOutputParser } from '../../src/core/search/searchOutput';

void describe('search output parser', () => {
  void it('reads records split anywhere across pieces, control records included', () => {
    const text = '/home/a/x.py\x0012:hello world\n\x00F7T-TOOL grep\n\x00F7T-FILES 3\n/home/a/new\nline.txt\x004:second\n\x00F7T-END 0 0\n';
    const p = new SearchOutputParser();
    const lines = [];
    let tool;
    let end;
    let files = 0;
    for (let i = 0; i < text.length; i += 5) {
      const piece = p.push(text.slice(i, i + 5));
      lines.push(...piece.lines);
      tool ??= piece.tool;
      end ??= piece.end;
      files += piece.files;
      assert.equal(piece.malformed, 0);
    }
    assert.deepEqual(lines, [{ path: '/home/a/x.py', line: 12, text: 'hello world' }, { path: '/home/a/new\nline.txt', line: 4, text: 'second' }]);
    assert.equal(tool, 'grep');
    assert.equal(files, 3);
    assert.deepEqual(end, { status: 0, findStatus: 0 });
  });

  void it('keeps the start of a very long line and still reports the match', () => {
    const p = new SearchOutputParser();
    const long = 'x'.repeat(5 * 1024 * 1024);
    const a = p.push(`/home/a/min.js\x001:${long.slice(0, 1024 * 1024)}`);
    const b = p.push(`${long.slice(1024 * 1024)}\n/home/a/b\x002:ok\n`);
    assert.equal(a.lines.length, 0);
    assert.equal(b.lines.length, 2);
    assert.equal(b.lines[0].text.length, MAX_LINE_CHARS);
    assert.equal(b.lines[1].text, 'ok');
  });

  void it('a record that never ends: 64 MiB read in one pass, dropped with a count, memory bounded', () => {
    // This grew the extension host by 336 MiB and took 35 s when the parser kept and rejoined it.
    const p = new SearchOutputParser();
    const chunk = '/'.repeat(1024 * 1024);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    let overlong = 0;
    for (let i = 0; i < 64; i++) overlong += p.push(chunk).overlong;
    const grown = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    const ms = performance.now() - t0;
    // Then the record ends, and the next one is read as usual.
    const after = p.push('\x001:tail\n/home/a/fine\x007:found\n');
    overlong += after.overlong;
    assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms`);
    assert.ok(grown < 32, `the heap grew by ${grown.toFixed(0)} MiB`);
    assert.equal(overlong, 1);
    assert.deepEqual(after.lines, [{ path: '/home/a/fine', line: 7, text: 'found' }]);
    // Cut off at the end of the file: malformed, counted once.
    p.push('/'.repeat(100 * 1024));
    const final = p.push('', true);
    assert.equal(final.malformed, 1);
    assert.equal(final.overlong, 1);
  });
});

void describe('search results outside the folder', () => {
  void it('keeps only paths under the folder searched, normalised', () => {
    const at = (path: string) => ({ path, line: 1, text: 't' });
    const { kept, dropped } = insideFolder('/home/alice/proj/', [
      at('/home/alice/proj/a.py'), at('/home/alice/proj/./sub//b.py'), at('/etc/shadow'), at('/home/alice/proj/../x'),
      at('/home/alice/project2/c.py'), at('/home/alice/proj'), at('/home/alice/proj/sub/../../proj/d.py'),
    ]);
    assert.deepEqual(kept.map((k) => k.path), ['/home/alice/proj/a.py', '/home/alice/proj/sub/b.py', '/home/alice/proj/d.py']);
    assert.equal(dropped, 4);
    assert.deepEqual(insideFolder('/', [at('/etc/hosts'), at('/')]).kept.map((k) => k.path), ['/etc/hosts']);
  });
});
