/**
 * The one-pass `ls` check (src/core/v2/lsEntries.ts) accepts and rejects exactly what the schema
 * `LsW` does, translates like `toFileEntry`, and reads the server's timestamps like Date.parse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedResponseError } from '../../src/core/errors';
import type { TransportResponse } from '../../src/core/http/transport';
import { fastEntries, parseLsEntries } from '../../src/core/v2/lsEntries';
import { parseBody } from '../../src/core/v2/parse';
import { parseLastModified, toFileEntry } from '../../src/core/v2/translate';
import { LsW } from '../../src/core/v2/wire';

const res = (body: unknown): TransportResponse => ({ requestId: 'r', status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(body)) });
const file = { name: 'a', type: '-', linkTarget: null, user: 'u', group: 'g', permissions: 'rw-r--r--', lastModified: '2025-01-10T09:00:00', size: '12' };

const zodVerdict = (body: unknown) => LsW.safeParse(body).success;

void describe('v2 ls: the one-pass check', () => {
  void it('agrees with LsW on every field the extension relies on', () => {
    const cases: unknown[] = [
      { output: [file] },
      { output: [] },
      { output: [{ ...file, linkTarget: '/t', size: 12 }] },
      { output: [{ ...file, linkTarget: undefined, extra: 1 }] },
      { output: [{ ...file, name: 5 }] },
      { output: [{ ...file, type: null }] },
      { output: [{ ...file, user: undefined }] },
      { output: [{ ...file, group: 1 }] },
      { output: [{ ...file, permissions: null }] },
      { output: [{ ...file, lastModified: 0 }] },
      { output: [{ ...file, size: null }] },
      { output: [{ ...file, size: true }] },
      { output: [{ ...file, linkTarget: 3 }] },
      { output: [file, null] },
      { output: [file, 'x'] },
      { output: null },
      { output: {} },
      {},
      [],
      null,
      'ls',
    ];
    for (const c of cases) {
      const fast = fastEntries(c);
      const ok = zodVerdict(c);
      // The fast path may leave a case to zod, but never accepts what zod refuses.
      if (fast) assert.ok(ok, `fast path accepted ${JSON.stringify(c)}`);
      if (ok) assert.deepEqual(parseLsEntries(res(c), 'r'), LsW.parse(c).output.map(toFileEntry), JSON.stringify(c));
      else assert.throws(() => parseLsEntries(res(c), 'GET /filesystem/{system}/ops/ls'), (e: unknown) => e instanceof MalformedResponseError && e.route === 'GET /filesystem/{system}/ops/ls', JSON.stringify(c));
    }
  });

  void it('translates 10,000 entries like the schema path does', () => {
    const output = Array.from({ length: 10_000 }, (_, i) => ({ ...file, name: `f${i}`, type: ['-', 'd', 'l', 'p'][i % 4], size: i % 3 ? String(i) : i, linkTarget: i % 4 === 2 ? `t${i}` : null }));
    assert.deepEqual(parseLsEntries(res({ output }), 'r'), parseBody(LsW, res({ output }), 'r').output.map(toFileEntry));
  });

  void it('reads YYYY-MM-DDTHH:MM:SS like Date.parse read as UTC; other forms still parse', () => {
    const cases = ['2025-01-10T09:00:00', '2024-02-29T23:59:59', '2026-02-29T00:00:00', '2026-04-31T12:00:00', '1970-01-01T00:00:00', '2026-12-31T23:59:59'];
    for (const s of cases) assert.equal(parseLastModified(s), Date.parse(`${s}Z`), s);
    assert.equal(parseLastModified('2025-01-10T09:00:00+02:00'), Date.parse('2025-01-10T09:00:00+02:00'));
    assert.equal(parseLastModified('2025-01-10T09:00:00Z'), Date.parse('2025-01-10T09:00:00Z'));
    for (const bad of ['2025-13-10T09:00:00', '2025-01-10T24:00:61', 'yesterday', '', '2025-01-1xT09:00:00']) assert.equal(parseLastModified(bad), Number.isNaN(Date.parse(`${bad}Z`)) ? 0 : Date.parse(`${bad}Z`), bad);
  });
});
