/**
 * The local side of a sync: every file of the mapped folder that `.gitignore` rules (each folder's
 * own, as git reads them, through the `ignore` package) and the mapping's `exclude` globs leave
 * in, with size, mtime and whether it is executable. `.git/` never syncs. A symlink that points
 * outside the folder is reported and skipped; one inside it travels as a link.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, type Dirent } from 'node:fs';
import { lstat, mkdir, realpath } from 'node:fs/promises';
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

/** A path of this machine with `/` separators (a link's target, as tar and the manifest store it). */
export const toPosix = (p: string): string => p.split(sep).join('/');

function ignoredBy(rules: Rules[], rel: string, isDir: boolean): boolean {
  for (const r of rules) {
    const below = r.base === '' ? rel : rel.startsWith(`${r.base}/`) ? rel.slice(r.base.length + 1) : undefined;
    if (below === undefined || below === '') continue;
    if (r.ig.ignores(isDir ? `${below}/` : below)) return true;
  }
  return false;
}

/**
 * Gives the event loop a turn every `every` units of synchronous work. The scan and the archive
 * use the synchronous file calls (a tenth of the cost of a thread-pool round trip per small
 * file) in slices of a few milliseconds, so the extension host never stalls on a large folder.
 */
export function slicer(every: number): (units?: number) => Promise<void> | undefined {
  let done = 0;
  return (units = 1) => {
    done += units;
    if (done < every) return undefined;
    done = 0;
    return new Promise<void>((r) => setImmediate(r));
  };
}

/**
 * Every file of the folder that the rules leave in. `onFile` sees each one as the walk finds it (a
 * sync packs the files it will send while the remote side is listed); a promise it returns is
 * awaited before the walk goes on, and a throw ends the scan.
 */
export async function scanLocal(root: string, o: ScanOptions = {}, onFile?: (f: LocalFile) => Promise<void> | undefined): Promise<LocalScan> {
  const top = resolve(root);
  const realTop = await realpath(top);
  const files = new Map<string, LocalFile>();
  const skipped: LocalScan['skipped'] = [];
  const rootRules: Rules = { base: '', ig: ignore().add(['.git/', ...(o.exclude ?? [])]) };
  const slice = slicer(256);

  // Depth first, in name order, so the files come out sorted.
  const walk = async (dirRel: string, inherited: Rules[]): Promise<void> => {
    const abs = dirRel ? join(top, dirRel) : top;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      skipped.push({ rel: dirRel || '.', why: `cannot be read: ${(e as Error).message}` });
      return;
    }
    let rules = inherited;
    // Read only where the listing has one: a failed open per folder costs more than the rest of its scan.
    if (o.useGitignore !== false && entries.some((e) => e.name === '.gitignore')) {
      const text = readIfThere(join(abs, '.gitignore'));
      if (text !== undefined) rules = [...inherited, { base: dirRel, ig: ignore().add(text) }];
    }
    for (const entry of entries) {
      const rel = dirRel ? `${dirRel}/${entry.name}` : entry.name;
      const path = join(abs, entry.name);
      await slice();
      if (ignoredBy(rules, rel, entry.isDirectory())) continue;
      let found: LocalFile | undefined;
      try {
        if (entry.isDirectory()) {
          await walk(rel, rules);
        } else if (entry.isSymbolicLink()) {
          const st = lstatSync(path);
          const target = readlinkSync(path);
          let real: string;
          try {
            real = realpathSync(path);
          } catch {
            real = resolve(dirname(path), target);
          }
          if (real !== realTop && !real.startsWith(realTop + sep)) {
            skipped.push({ rel, why: `a symlink to ${target}, outside the folder` });
            continue;
          }
          found = { rel, kind: 'link', size: Buffer.byteLength(target), mtimeMs: Math.floor(st.mtimeMs), executable: false, linkTarget: toPosix(target) };
        } else if (entry.isFile()) {
          const st = lstatSync(path);
          found = { rel, kind: 'file', size: st.size, mtimeMs: Math.floor(st.mtimeMs), executable: (st.mode & 0o100) !== 0 };
        } else {
          skipped.push({ rel, why: 'not a regular file' });
        }
      } catch (e) {
        skipped.push({ rel, why: `cannot be read: ${(e as Error).message}` });
      }
      if (found) {
        files.set(rel, found);
        const turn = onFile?.(found);
        if (turn) await turn;
      }
    }
  };
  await walk('', [rootRules]);
  // Sorted by path as a whole ('a b' before 'a/b'), whatever the walk's order.
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), skipped: skipped.sort((a, b) => (a.rel < b.rel ? -1 : 1)) };
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `rel` as a path below `root` on this machine. */
export function localPathOf(root: string, rel: string): string {
  const p = resolve(root, ...rel.split('/'));
  const r = relative(resolve(root), p);
  if (r.startsWith('..') || r === '') throw new Error(`${rel} is not below ${root}`);
  return p;
}

/**
 * `rel` as a path below `root` to write to, its folders made as needed. A folder on the way that
 * is a symlink leading outside the folder, or that is not a folder, is refused with the reason:
 * nothing is written through it (the scan skips such links for the same reason). A link that
 * stays inside the folder is followed, as the scan does.
 */
export async function writablePathOf(root: string, rel: string): Promise<string> {
  const path = localPathOf(root, rel);
  const top = resolve(root);
  const realTop = await realpath(top);
  let dir = top;
  for (const part of rel.split('/').slice(0, -1)) {
    dir = join(dir, part);
    let st;
    try {
      st = await lstat(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // Made here, not by a recursive mkdir that would follow a link made meanwhile.
      await mkdir(dir).catch((m: NodeJS.ErrnoException) => { if (m.code !== 'EEXIST') throw m; });
      st = await lstat(dir);
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(dir).catch(() => undefined);
      if (real === undefined || (real !== realTop && !real.startsWith(realTop + sep))) {
        throw new LocalPathRefusedError(`${toPosix(relative(top, dir))} is a symlink leading outside the folder: nothing is written through it`);
      }
    } else if (!st.isDirectory()) {
      throw new LocalPathRefusedError(`${toPosix(relative(top, dir))} is not a folder`);
    }
  }
  return path;
}

/** A local path the sync will not write to (a symlinked folder leading outside, a file where a folder should be). */
export class LocalPathRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalPathRefusedError';
  }
}
