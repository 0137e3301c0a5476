/**
 * Directory listings and single entries (the v2 `File` object).
 *
 * The real server parses `ls -l --quoting-style=c` text. Here one `find -printf` process prints every
 * field NUL-terminated, so any file name (spaces, newlines, quotes, emoji) comes through unchanged and
 * parsing is a split; sorting and the `ls -R` order are rebuilt afterwards. `find -L` also lists
 * broken links (as type `l`) where `ls -L` would fail the whole listing.
 */
import type { GatewaySettings } from '../v2/context';
import type { UnixUser } from '../users';
import { runRemote } from './run-remote';

/** The v2 `File` object. */
export interface WireFile {
  name: string;
  type: string;
  linkTarget: string | null;
  user: string;
  group: string;
  permissions: string;
  lastModified: string;
  size: string;
}

export interface ListOptions {
  showHidden: boolean;
  recursive: boolean;
  numericUid: boolean;
  dereference: boolean;
}

const FIELDS = 8;

function format(numericUid: boolean): string {
  // depth, ls-style mode, owner, group, size, mtime, link target, path relative to the start
  return `%d\\0%M\\0${numericUid ? '%U' : '%u'}\\0${numericUid ? '%G' : '%g'}\\0%s\\0%T+\\0%l\\0%P\\0`;
}

/** `find` names its starting point in diagnostics; the real server's messages come from `ls`. */
export function lsStyleStderr(stderr: string): string {
  return stderr.replace(/^find: ['‘](.*)['’]: (.*)$/gm, (_m, p: string, why: string) =>
    why === 'Permission denied' ? `ls: cannot open directory '${p}': ${why}` : `ls: cannot access '${p}': ${why}`);
}

interface Row {
  depth: number;
  rel: string;
  file: WireFile;
}

function parse(out: Buffer): Row[] {
  const parts = out.toString('utf8').split('\0');
  const rows: Row[] = [];
  for (let i = 0; i + FIELDS <= parts.length; i += FIELDS) {
    const mode = parts[i + 1];
    const type = mode.charAt(0);
    const link = parts[i + 6];
    rows.push({
      depth: Number(parts[i]),
      rel: parts[i + 7],
      file: {
        name: parts[i + 7],
        type,
        // With -L a followed link shows its target's type; only an unresolved one keeps its target.
        linkTarget: type === 'l' && link !== '' ? link : null,
        user: parts[i + 2],
        group: parts[i + 3],
        permissions: mode.slice(1, 10),
        lastModified: parts[i + 5].slice(0, 19).replace('+', 'T'),
        size: parts[i + 4],
      },
    });
  }
  return rows;
}

const byName = (a: Row, b: Row): number => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);

/** Each directory's entries sorted, then its subdirectories in turn: the order of `ls -R`. */
function lsRecursiveOrder(rows: Row[]): WireFile[] {
  const children = new Map<string, Row[]>();
  for (const r of rows) {
    const slash = r.rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : r.rel.slice(0, slash);
    const list = children.get(parent);
    if (list) list.push(r);
    else children.set(parent, [r]);
  }
  const out: WireFile[] = [];
  const visit = (dir: string): void => {
    const list = children.get(dir);
    if (!list) return;
    list.sort(byName);
    for (const r of list) out.push(r.file);
    for (const r of list) if (r.file.type === 'd') visit(r.rel);
  };
  visit('');
  return out;
}

const hidden = (rel: string): boolean => rel.startsWith('.') || rel.includes('/.');

/**
 * `ls -l` of `path` as `user`: the entries of a directory (names relative to it), or a one-element
 * list for anything else (named `path` as given).
 */
export async function listFiles(user: UnixUser, path: string, opts: ListOptions, settings: GatewaySettings): Promise<WireFile[]> {
  const argv = ['find', opts.dereference ? '-L' : '-P', path];
  if (!opts.recursive) argv.push('-maxdepth', '1');
  argv.push('-printf', format(opts.numericUid));
  const result = await runRemote(user, argv, settings, { stderrText: lsStyleStderr });
  const rows = parse(result.stdout);
  const self = rows.find((r) => r.depth === 0);
  if (!self || self.file.type !== 'd') return self ? [{ ...self.file, name: path }] : [];
  const entries = rows.filter((r) => r.depth > 0 && (opts.showHidden || !hidden(r.rel)));
  if (!opts.recursive) return entries.sort(byName).map((r) => r.file);
  return lsRecursiveOrder(entries);
}

/** `ls -ld` of `path` (links not followed): the entry named `path` as given. */
export async function fileEntry(user: UnixUser, path: string, settings: GatewaySettings): Promise<WireFile> {
  const result = await runRemote(user, ['find', '-P', path, '-maxdepth', '0', '-printf', format(false)], settings, { stderrText: lsStyleStderr });
  const row = parse(result.stdout)[0];
  if (!row) throw new Error(`find printed no entry for ${path}`);
  return { ...row.file, name: path };
}
