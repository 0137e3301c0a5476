/**
 * The pieces of the randomised file workload: a seeded PRNG, the model of what the remote folder
 * must hold, a snapshot of what it actually holds (listing + server SHA-256), and the random choice
 * of the next operation from the model (only operations the model says are valid, so any semantic
 * refusal such as "exists" is a bug, not noise).
 */
import { createHash } from 'node:crypto';
import type { FirecrestApi } from '../../src/core/index';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export type Node = { kind: 'dir' } | { kind: 'file'; sha256: string; size: number };
/** Relative path (`d0/f3`) → node. The root folder itself is not in the map. */
export type Tree = Map<string, Node>;

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export function cloneTree(t: Tree): Tree {
  return new Map(t);
}

/** Temporary files of atomic saves (`.<name>.firecrest-<hex>.tmp`): litter, never content. */
export const isSaveTemp = (name: string) => /^\..*\.firecrest-[0-9a-f]+\.tmp$/.test(name);

/** What the remote folder holds, with the server's checksum of every file. Faults must be off. */
export async function snapshot(api: FirecrestApi, system: string, root: string): Promise<{ tree: Tree; temps: string[] }> {
  const tree: Tree = new Map();
  const temps: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const abs = rel ? `${root}/${rel}` : root;
    for (const e of await api.list(system, abs, { showHidden: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (isSaveTemp(e.name)) { temps.push(r); continue; }
      if (e.kind === 'directory') {
        tree.set(r, { kind: 'dir' });
        await walk(r);
      } else {
        const sum = await api.checksum(system, `${root}/${r}`);
        tree.set(r, { kind: 'file', sha256: sum.checksum.toLowerCase(), size: e.size });
      }
    }
  };
  await walk('');
  return { tree, temps };
}

/** Differences between two trees, one line each; empty when equal. */
export function diffTrees(want: Tree, got: Tree): string[] {
  const out: string[] = [];
  for (const [p, n] of want) {
    const g = got.get(p);
    if (!g) out.push(`missing ${p}`);
    else if (g.kind !== n.kind) out.push(`${p}: ${g.kind} instead of ${n.kind}`);
    else if (n.kind === 'file' && g.kind === 'file' && (g.sha256 !== n.sha256 || g.size !== n.size)) out.push(`${p}: content differs (${g.size} bytes, want ${n.size})`);
  }
  for (const p of got.keys()) if (!want.has(p)) out.push(`unexpected ${p}`);
  return out;
}

export type Op =
  | { op: 'write'; path: string; data: Uint8Array; overwrite: boolean }
  | { op: 'mkdir'; path: string }
  | { op: 'delete'; path: string }
  | { op: 'rename'; from: string; to: string; overwrite: boolean }
  | { op: 'copy'; from: string; to: string; overwrite: boolean };

export function describeOp(o: Op): string {
  switch (o.op) {
    case 'write': return `write ${o.path} (${o.data.byteLength} bytes${o.overwrite ? ', overwrite' : ''})`;
    case 'mkdir': return `mkdir ${o.path}`;
    case 'delete': return `delete ${o.path}`;
    default: return `${o.op} ${o.from} -> ${o.to}${o.overwrite ? ' (overwrite)' : ''}`;
  }
}

/** The tree after `o` succeeded. */
export function apply(t: Tree, o: Op): Tree {
  const n = cloneTree(t);
  const under = (p: string) => [...n.keys()].filter((k) => k === p || k.startsWith(`${p}/`));
  switch (o.op) {
    case 'write': n.set(o.path, { kind: 'file', sha256: sha256(o.data), size: o.data.byteLength }); break;
    case 'mkdir': n.set(o.path, { kind: 'dir' }); break;
    case 'delete': for (const k of under(o.path)) n.delete(k); break;
    case 'rename':
    case 'copy': {
      const moved = under(o.from).map((k) => [o.to + k.slice(o.from.length), t.get(k)!] as const);
      for (const k of under(o.to)) n.delete(k);
      if (o.op === 'rename') for (const k of under(o.from)) n.delete(k);
      for (const [k, v] of moved) n.set(k, v);
      break;
    }
  }
  return n;
}

const NAMES = ['a.txt', 'b.dat', 'c', 'notes.md', 'run.sh'];
const DIRS = ['d0', 'd1', 'd0/sub'];

/** A random operation that the model says is valid. `large` is the direct-transfer limit. */
export function nextOp(t: Tree, rnd: () => number, large: number): Op {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  const dirs = ['', ...[...t].filter(([, v]) => v.kind === 'dir').map(([k]) => k)];
  const files = [...t].filter(([, v]) => v.kind === 'file').map(([k]) => k);
  const inDir = (d: string, name: string) => (d ? `${d}/${name}` : name);
  // A free or file path in an existing folder (never a folder: writes onto folders are refused).
  const fileTarget = () => {
    for (let i = 0; i < 8; i++) {
      const p = inDir(pick(dirs), pick(NAMES));
      if (t.get(p)?.kind !== 'dir') return p;
    }
    return inDir('', `x${Math.floor(rnd() * 1e6)}`);
  };
  const r = rnd();
  if (r < 0.35 || files.length === 0) {
    const big = rnd() < 0.05;
    const size = big ? large - Math.floor(rnd() * 4096) : Math.floor(rnd() * (rnd() < 0.1 ? 200_000 : 3000));
    const data = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) data[i] = Math.floor(rnd() * 256);
    if (size > 0) data[size - 1] = Math.floor(rnd() * 256);
    const path = fileTarget();
    return { op: 'write', path, data, overwrite: t.has(path) };
  }
  if (r < 0.45) {
    const d = pick(DIRS);
    const parent = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '';
    if (!t.has(d) && (parent === '' || t.get(parent)?.kind === 'dir')) return { op: 'mkdir', path: d };
  }
  if (r < 0.6) {
    const all = [...t.keys()];
    return { op: 'delete', path: pick(all.length ? all : files) };
  }
  const from = pick(files);
  const to = fileTarget();
  if (to === from) return { op: 'delete', path: from };
  return { op: rnd() < 0.5 ? 'rename' : 'copy', from, to, overwrite: t.has(to) };
}
