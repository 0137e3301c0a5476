/**
 * A generated source tree for the search suites and `npm run bench:search`: nested folders, names
 * with spaces and unicode, text in several languages, binary files, a `.git` folder, generated
 * code under `gen/` folders. Made locally (so that `grep -rn` can run over the very same bytes),
 * then sent as one archive and extracted on the cluster.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'foo', 'fooBar', 'foobar', 'FOO', 'foo_bar', 'barfoo', 'needle', 'Needle', 'NEEDLE', 'grüße', 'naïve', 'café', '✓', 'x42', 'v1.2', 'TODO', 'a+b', '[x]', 'end;'];

export interface LocalTree {
  dir: string;
  files: number;
  bytes: number;
  remove(): void;
}

/** `files` files (about `lineCount` lines each) under a fresh temporary folder; deterministic for a seed. */
export function makeTree(files: number, o: { lineCount?: number; seed?: number; lineLength?: number } = {}): LocalTree {
  // mulberry32: 32-bit integer steps (an LCG in doubles loses its low bits and cycles early).
  let state = (o.seed ?? 42) >>> 0;
  const rnd = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const dir = mkdtempSync(join(tmpdir(), 'f7t-search-tree-'));
  let bytes = 0;
  const lines = o.lineCount ?? 8;
  for (let i = 0; i < files; i++) {
    const top = `d${String(i % 50).padStart(2, '0')}`;
    const sub = i % 7 === 0 ? 'sub dir ü' : i % 11 === 0 ? 'gen' : i % 5 === 0 ? 'deep/er/still' : '';
    const folder = join(dir, top, sub);
    mkdirSync(folder, { recursive: true });
    const ext = i % 3 === 0 ? 'py' : i % 3 === 1 ? 'txt' : 'c';
    const name = i % 13 === 0 ? `file ${i} é.${ext}` : `f${i}.${ext}`;
    let body: string | Buffer;
    if (i % 97 === 0) {
      body = Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(' needle foo binary\n')]);
    } else {
      const out: string[] = [];
      const n = lines + Math.floor(rnd() * 4);
      for (let l = 0; l < n; l++) {
        const len = o.lineLength ?? 6;
        const words: string[] = [];
        // Mostly filler, so that each word of WORDS is on about a thousand lines of 10,000 files.
        for (let w = 0; w < len; w++) words.push(rnd() < 0.05 ? pick(WORDS) : `w${Math.floor(rnd() * 100000).toString(36)}`);
        out.push(words.join(pick([' ', ' ', '  ', '\t', '-', '.'])));
      }
      body = `${out.join('\n')}\n`;
    }
    writeFileSync(join(folder, name), body);
    bytes += body.length;
  }
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'config'), 'needle in git\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho needle\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  return { dir, files: files + 2, bytes, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The tree as one gzipped tar (in memory). */
export async function treeArchive(tree: LocalTree): Promise<Uint8Array> {
  const file = join(mkdtempSync(join(tmpdir(), 'f7t-search-tgz-')), 'tree.tgz');
  await tar.c({ gzip: true, cwd: tree.dir, file, portable: true }, ['.']);
  const data = readFileSync(file);
  rmSync(file, { force: true });
  return data;
}

export interface GrepOptions { regex?: boolean; matchCase?: boolean; wholeWord?: boolean; include?: string[]; excludeDirs?: string[] }

/** `grep -rn` over the local tree: `relative/path:line` of every matching line, and the texts. */
export function grepReference(tree: LocalTree, pattern: string, o: GrepOptions = {}): Map<string, string> {
  const args = ['-rnIZ', '--exclude-dir=.git', o.regex ? '-E' : '-F'];
  if (!o.matchCase) args.push('-i');
  if (o.wholeWord) args.push('-w');
  for (const g of o.include ?? []) args.push(`--include=${g}`);
  for (const d of o.excludeDirs ?? []) args.push(`--exclude-dir=${d}`);
  args.push('-e', pattern, '--', '.');
  const r = spawnSync('/usr/bin/grep', args, { cwd: tree.dir, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`grep failed: ${r.stderr}`);
  const out = new Map<string, string>();
  for (const rec of r.stdout.split('\n')) {
    const nul = rec.indexOf('\0');
    if (nul < 0) continue;
    const m = /^(\d+):(.*)$/s.exec(rec.slice(nul + 1));
    if (m) out.set(`${rec.slice(2, nul)}:${m[1]}`, m[2]);
  }
  return out;
}
