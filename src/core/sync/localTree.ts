/**
 * The local side of a sync: every file of the mapped folder that `.gitignore` rules (each folder's
 * own, as git reads them, through the `ignore` package) and the mapping's `exclude` globs leave
 * in, with size, mtime and whether it is executable. `.git/` never syncs. A symlink that points
 * outside the folder is reported and skipped; one inside it travels as a link.
 */
import { lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

export interface LocalFile {
  /** Path below the folder, `/`-separated. */
  rel: string;
  kind: 'file' | 'link';
  size: number;
  mtimeMs: number;
  executable: boolean;
  /** For links: the target as stored. */
  linkTarget?: string;
}

export interface LocalScan {
  files: Map<string, LocalFile>;
  /** Left out, with why (a symlink leading outside the folder, an unreadable entry). */
  skipped: { rel: string; why: string }[];
}

export interface ScanOptions {
  /** gitignore-style patterns, applied from the folder's root. */
  exclude?: string[];
  /** Read `.gitignore` files (default true). */
  useGitignore?: boolean;
}

interface Rules {
  /** The folder the rules were written in, `/`-separated, '' for the root. */
  base: string;
  ig: Ignore;
}

const toPosix = (p: string): string => p.split(sep).join('/');

function ignoredBy(rules: Rules[], rel: string, isDir: boolean): boolean {
  for (const r of rules) {
    const below = r.base === '' ? rel : rel.startsWith(`${r.base}/`) ? rel.slice(r.base.length + 1) : undefined;
    if (below === undefined || below === '') continue;
    if (r.ig.ignores(isDir ? `${below}/` : below)) return true;
  }
  return false;
}

export async function scanLocal(root: string, o: ScanOptions = {}): Promise<LocalScan> {
  const top = resolve(root);
  const realTop = await realpath(top);
  const files = new Map<string, LocalFile>();
  const skipped: LocalScan['skipped'] = [];
  const rootRules: Rules = { base: '', ig: ignore().add(['.git/', ...(o.exclude ?? [])]) };

  const walk = async (dirRel: string, inherited: Rules[]): Promise<void> => {
    const abs = dirRel ? join(top, dirRel) : top;
    let rules = inherited;
    if (o.useGitignore !== false) {
      const text = await readFile(join(abs, '.gitignore'), 'utf8').catch(() => undefined);
      if (text !== undefined) rules = [...inherited, { base: dirRel, ig: ignore().add(text) }];
    }
    let names: string[];
    try {
      names = (await readdir(abs)).sort();
    } catch (e) {
      skipped.push({ rel: dirRel || '.', why: `cannot be read: ${(e as Error).message}` });
      return;
    }
    // Every entry of a folder is looked at in parallel; the folders below, too.
    const entries = await Promise.all(names.map(async (name) => {
      const rel = dirRel ? `${dirRel}/${name}` : name;
      try {
        return { name, rel, st: await lstat(join(abs, name)) };
      } catch (e) {
        skipped.push({ rel, why: `cannot be read: ${(e as Error).message}` });
        return undefined;
      }
    }));
    const below: Promise<void>[] = [];
    for (const entry of entries) {
      if (!entry) continue;
      const { rel, st } = entry;
      const path = join(abs, entry.name);
      if (ignoredBy(rules, rel, st.isDirectory())) continue;
      if (st.isDirectory()) {
        below.push(walk(rel, rules));
      } else if (st.isSymbolicLink()) {
        const target = await readlink(path);
        const real = await realpath(path).catch(() => resolve(dirname(path), target));
        const inside = real === realTop || real.startsWith(realTop + sep);
        if (!inside) {
          skipped.push({ rel, why: `a symlink to ${target}, outside the folder` });
          continue;
        }
        files.set(rel, { rel, kind: 'link', size: Buffer.byteLength(target), mtimeMs: Math.floor(st.mtimeMs), executable: false, linkTarget: toPosix(target) });
      } else if (st.isFile()) {
        files.set(rel, { rel, kind: 'file', size: st.size, mtimeMs: Math.floor(st.mtimeMs), executable: (st.mode & 0o100) !== 0 });
      } else {
        skipped.push({ rel, why: 'not a regular file' });
      }
    }
    await Promise.all(below);
  };
  await walk('', [rootRules]);
  // In path order, whatever order the parallel walk finished in.
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), skipped: skipped.sort((a, b) => (a.rel < b.rel ? -1 : 1)) };
}

/** `rel` as a path below `root` on this machine. */
export function localPathOf(root: string, rel: string): string {
  const p = resolve(root, ...rel.split('/'));
  const r = relative(resolve(root), p);
  if (r.startsWith('..') || r === '') throw new Error(`${rel} is not below ${root}`);
  return p;
}
