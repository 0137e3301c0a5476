/**
 * OffsetReader reads a growing UTF-8 file exactly on both kinds of `view`: bytes from `offset`
 * (the API as described, the local gateway) and upstream's block-decoded string sliced by
 * characters (issue 16, point 4). The file grows between reads, with multi-byte characters
 * everywhere, lines of every length, and a seek into the middle of a character.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OffsetReader, type ViewSource } from '../../src/core/offsetReader';

function byteView(file: () => Buffer): ViewSource {
  return { view: async (_s, _p, o = {}) => {
    const size = o.size ?? 5 << 20;
    const offset = o.offset ?? 0;
    return file().subarray(offset, offset + size).toString('utf8');
  } };
}

/** Upstream: dd bs=size skip=offset/size count=2, decoded, then sliced by characters. */
function upstreamView(file: () => Buffer): ViewSource {
  return { view: async (_s, _p, o = {}) => {
    const size = o.size ?? 5 << 20;
    const offset = o.offset ?? 0;
    const start = Math.floor(offset / size) * size;
    const from = offset % size;
    return Array.from(file().subarray(start, start + 2 * size).toString('utf8')).slice(from, from + size).join('');
  } };
}

/** Deterministic text: ASCII, 2-, 3- and 4-byte characters, lines of 0..300 characters. */
function text(seed: number, lines: number): string {
  let a = seed;
  const rnd = (): number => ((a = (a * 1103515245 + 12345) % 2147483648) / 2147483648);
  const alphabet = ['a', 'b', ' ', 'ü', 'é', '✓', '€', '𝄞', '😀', '-', '1'];
  let out = '';
  for (let l = 0; l < lines; l++) {
    const n = Math.floor(rnd() * (l % 17 === 0 ? 3000 : 300));
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(rnd() * alphabet.length)];
    out += '\n';
  }
  return out;
}

async function follow(kind: (f: () => Buffer) => ViewSource, chunk: number, seed: number): Promise<void> {
  const all = Buffer.from(text(seed, 400), 'utf8');
  let visible = 0;
  const file = (): Buffer => all.subarray(0, visible);
  const reader = new OffsetReader(kind(file), 's', '/out', chunk);
  let got = '';
  let fetched = 0;
  let rounds = 0;
  while (visible < all.length) {
    visible = Math.min(all.length, visible + 1 + ((seed * 7919 + rounds * 104729) % 9000));
    rounds++;
    for (;;) {
      const r = await reader.read();
      got += r.text;
      fetched += r.fetched;
      if (!r.full) break;
    }
  }
  for (;;) {
    const r = await reader.read({ final: true });
    got += r.text;
    fetched += r.fetched;
    if (!r.full) break;
  }
  assert.equal(Buffer.compare(Buffer.from(got, 'utf8'), all), 0, `byte-exact (chunk ${chunk}, seed ${seed})`);
  assert.equal(reader.offset, all.length);
  assert.ok(fetched <= all.length * 1.6 + 64 * 1024, `fetched ${fetched} for ${all.length}`);
}

void describe('OffsetReader', () => {
  for (const [name, kind] of [['bytes', byteView], ['upstream', upstreamView]] as const) {
    void it(`follows a growing UTF-8 file byte-exactly on a ${name} view`, async () => {
      for (const chunk of [8192, 20000, 65536]) for (const seed of [1, 2, 3]) await follow(kind, chunk, seed);
    });
  }

  void it('after a seek into the middle of a character, continues exactly from the next line', async () => {
    const all = Buffer.from('✓✓✓✓✓✓\n' + 'second line ü\n'.repeat(50) + 'tail ✓\n', 'utf8');
    for (const kind of [byteView, upstreamView]) {
      const reader = new OffsetReader(kind(() => all), 's', '/out', 16);
      reader.seek(17); // rounded down to 16: inside the first line's last character
      let got = '';
      for (;;) {
        const r = await reader.read({ final: true });
        got += r.text;
        if (!r.full) break;
      }
      assert.equal(got, 'second line ü\n'.repeat(50) + 'tail ✓\n');
    }
  });
});
