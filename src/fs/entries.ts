/**
 * Directory listings as the provider sees them: one `ls` turned into typed entries, with the
 * targets of symbolic links resolved by at most one extra (dereferenced) listing of the same
 * directory. Free of `vscode`: the type bits below have the values of `vscode.FileType`.
 */
import * as l10n from '@vscode/l10n';
import type { FirecrestApi } from '../core/api';
import type { FileEntry, FileStat } from '../core/model';
import type { FirecrestUri } from '../core/uri';
import { FsError } from './fsError';

/** Same numeric values as `vscode.FileType` (stable API), so the adapter passes them through. */
export const EntryType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 } as const;

export interface RemoteEntry {
  name: string;
  /** `EntryType` bits; links carry SymbolicLink plus the target's type when it resolves. */
  type: number;
  size: number;
  /** epoch ms */
  mtime: number;
  permissions: string;
  linkTarget?: string;
}

export interface Listing {
  entries: Map<string, RemoteEntry>;
}

function baseType(kind: FileEntry['kind']): number {
  switch (kind) {
    case 'file':
      return EntryType.File;
    case 'directory':
      return EntryType.Directory;
    default:
      return EntryType.Unknown;
  }
}

/** `st_mode` bits to a type (used when a single `stat` replaces a listing). */
export function typeFromMode(mode: number): number {
  switch (mode & 0o170000) {
    case 0o040000:
      return EntryType.Directory;
    case 0o100000:
      return EntryType.File;
    case 0o120000:
      return EntryType.SymbolicLink;
    default:
      return EntryType.Unknown;
  }
}

export function entryFromStat(name: string, st: FileStat, isLink: boolean): RemoteEntry {
  return {
    name,
    type: typeFromMode(st.mode) | (isLink ? EntryType.SymbolicLink : 0),
    size: st.size,
    mtime: st.mtime * 1000,
    permissions: '',
  };
}

function toEntry(e: FileEntry): RemoteEntry {
  return {
    name: e.name,
    type: e.kind === 'symlink' ? EntryType.SymbolicLink : baseType(e.kind),
    size: e.size,
    mtime: e.mtime,
    permissions: e.permissions,
    linkTarget: e.linkTarget,
  };
}

/** Lists `dir` with hidden files; throws FsError FileNotADirectory when it names a file. */
export async function fetchListing(api: FirecrestApi, dir: FirecrestUri): Promise<Listing> {
  let raw = await api.list(dir.system, dir.path, { showHidden: true });
  // `ls` on a non-directory answers one entry named by the path as given. A link to a directory
  // shows up the same way (ls -l does not follow a link argument): ask again through the link.
  if (isSelfEntry(raw, dir.path)) {
    if (raw[0].kind !== 'symlink') throw new FsError('FileNotADirectory', l10n.t('{0} is not a directory', dir.path));
    raw = await api.list(dir.system, dir.path + '/', { showHidden: true });
    if (isSelfEntry(raw, dir.path)) throw new FsError('FileNotADirectory', l10n.t('{0} is not a directory', dir.path));
  }
  const entries = new Map<string, RemoteEntry>();
  let links = 0;
  for (const e of raw) {
    if (e.name === '.' || e.name === '..') continue;
    entries.set(e.name, toEntry(e));
    if (e.kind === 'symlink') links++;
  }
  if (links > 0) await resolveLinks(api, dir, entries);
  return { entries };
}

/**
 * What a listing of the file `path` itself says about it (`ls -l` of one file answers its own line,
 * read exactly as a folder's lines are): its entry under `name`, or undefined when the answer is
 * not one file (a folder's contents, a link).
 */
export async function fetchFileEntry(api: FirecrestApi, system: string, path: string, name: string): Promise<RemoteEntry | undefined> {
  const raw = await api.list(system, path, { showHidden: true });
  if (raw.length !== 1 || raw[0].kind !== 'file' || !raw[0].name.endsWith(name)) return undefined;
  return { ...toEntry(raw[0]), name };
}

function isSelfEntry(raw: FileEntry[], path: string): boolean {
  return raw.length === 1 && raw[0].name.includes('/') && (raw[0].name === path || raw[0].name.replace(/\/+$/, '') === path);
}

/** At most this many per-link stats when the dereferenced listing fails (broken links on some servers). */
const MAX_SINGLE_LINK_STATS = 16;

async function resolveLinks(api: FirecrestApi, dir: FirecrestUri, entries: Map<string, RemoteEntry>): Promise<void> {
  const links = [...entries.values()].filter((e) => e.type === EntryType.SymbolicLink);
  try {
    const deref = await api.list(dir.system, dir.path, { showHidden: true, dereference: true });
    const byName = new Map(deref.map((e) => [e.name, e]));
    for (const link of links) {
      const target = byName.get(link.name);
      // A broken link stays a link (ls -L reports it as a link or leaves it out): type Unknown.
      if (!target || target.kind === 'symlink') continue;
      link.type = EntryType.SymbolicLink | baseType(target.kind);
      link.size = target.size;
      link.mtime = target.mtime;
    }
  } catch {
    // Some servers fail the whole dereferenced listing when one link is broken: fall back to a
    // bounded number of single stats; the rest stay plain links rather than breaking the listing.
    await Promise.all(
      links.slice(0, MAX_SINGLE_LINK_STATS).map(async (link) => {
        try {
          const st = await api.stat(dir.system, joinChild(dir.path, link.name), { dereference: true });
          link.type = EntryType.SymbolicLink | typeFromMode(st.mode);
          link.size = st.size;
          link.mtime = st.mtime * 1000;
        } catch {
          /* broken link: keep SymbolicLink alone */
        }
      }),
    );
  }
}

function joinChild(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** `rwxr-sr-t`-style text to an octal mode string for chmod, or undefined when it is not that. */
export function permissionsToMode(p: string): string | undefined {
  if (!/^[r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-]$/.test(p)) return undefined;
  let special = 0;
  const digits = [0, 3, 6].map((i, k) => {
    const t = p.slice(i, i + 3);
    let d = (t[0] === 'r' ? 4 : 0) + (t[1] === 'w' ? 2 : 0);
    if (t[2] === 'x' || t[2] === 's' || t[2] === 't') d += 1;
    if (t[2] === 's' || t[2] === 'S' || t[2] === 't' || t[2] === 'T') special |= [4, 2, 1][k];
    return d;
  });
  return `${special}${digits.join('')}`;
}
