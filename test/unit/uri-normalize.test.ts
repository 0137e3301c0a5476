/** FirecrestUri path normalisation: the fast path for already-normal paths changes no result. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FirecrestUri } from '../../src/core/uri';

const path = (p: string) => FirecrestUri.from({ system: 's', path: p }).path;

void describe('FirecrestUri path normalisation', () => {
  void it('normal paths come back as they are; others are normalised', () => {
    const cases: [string, string][] = [
      ['/', '/'], ['', '/'], ['a', '/a'], ['/a', '/a'], ['/a/', '/a'], ['/a//b', '/a/b'], ['/a/./b', '/a/b'], ['/a/../b', '/b'],
      ['/..', '/'], ['/.', '/'], ['/...', '/...'], ['/a/...', '/a/...'], ['/.hidden', '/.hidden'], ['/a/.b/..c', '/a/.b/..c'],
      ['/a/b/.', '/a/b'], ['/a/b/..', '/a'], ['//', '/'], ['/a/ b', '/a/ b'], ['/ü/x', '/ü/x'], ['rel/x', '/rel/x'], ['/a/..b', '/a/..b'],
      ['/./a', '/a'], ['/home/alice/d10k/f9999', '/home/alice/d10k/f9999'], ['/x/../../..', '/'],
    ];
    for (const [input, want] of cases) assert.equal(path(input), want, JSON.stringify(input));
  });
});
