/**
 * Directory listings and single entries (the v2 `File` object).
 *
 * The real server parses `ls -l --quoting-style=c` text. Here one `find -printf` process prints every
 * field NUL-terminated, so any file name (spaces, newlines, quotes, emoji) comes through unchanged and
 * parsing is a split; sorting and the `ls -R` order are rebuilt afterwards. `find -L` also lists
 * broken links (as type `l`) where `ls -L` would fail the whole listing.
 */
import type { GatewaySettings } from '../runtime';
import type { UnixUser } from '../users';
import type { IdNames } from './id-names';
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

// depth, ls-style mode, uid, gid, size, mtime (epoch), link target, path relative to the start.
// Numbers for owners and time: find would look names up and convert the time zone per entry.
const FORMAT = '%d\\0%M\\0%U\\0%G\\0%s\\0%T@\\0%l\\0%P\\0';

const pad = (n: number): string => String(n).padStart(2, '0');

/** Epoch seconds as `ls --time-style=+%Y-%m-%dT%H:%M:%S` prints them (local time). */
function lsTime(epoch: string): string {
  const d = new Date(Math.floor(Number(epoch)) * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const FIND_ERROR = /^find: ['‘](.*)['’]: (.*)$/gm;

/**
 * The real server's messages come from `ls`: its wording, and its exit status 2 when the path asked
 * for cannot be read at all (find says 1 for everything).
 */
function lsStyleFailure(path: string): (f: { code: number; stderr: string }) => { code: number; text: string } {
  return ({ code, stderr }) => {
    let aboutPath = false;
    const text = stderr.replace(FIND_ERROR, (_m, p: string, why: string) => {
      if (p === path) aboutPath = true;
      return why === 'Permission denied' ? `ls: cannot open directory '${p}': ${why}` : `ls: cannot access '${p}': ${why}`;
    });
    return { code: aboutPath && code === 1 ? 2 : code, text };
  };
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
        lastModified: lsTime(parts[i + 5]),
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

/** `path` as a find -path pattern that matches only itself. */
function globLiteral(path: string): string {
  return path.replace(/[\\*?[\]]/g, '\\$&');
}

const hidden = (rel: string): boolean => rel.startsWith('.') || rel.includes('/.');

/** What listings need from the gateway: its limits and the id -> name cache. */
export interface ListingDeps {
  settings: GatewaySettings;
  names: IdNames;
}

/** Owner and group names in place of the numbers find printed. */
async function withNames(files: WireFile[], names: IdNames): Promise<WireFile[]> {
  const users = await names.resolve('passwd', files.map((f) => f.user));
  const groups = await names.resolve('group', files.map((f) => f.group));
  for (const f of files) {
    f.user = users.get(f.user) ?? f.user;
    f.group = groups.get(f.group) ?? f.group;
  }
  return files;
}

/**
 * `ls -l` of `path` as `user`: the entries of a directory (names relative to it), or a one-element
 * list for anything else (named `path` as given).
 */
export async function listFiles(user: UnixUser, path: string, opts: ListOptions, deps: ListingDeps): Promise<WireFile[]> {
  const argv = ['find', opts.dereference ? '-L' : '-P', path];
  if (!opts.recursive) argv.push('-maxdepth', '1');
  // Like `ls -R` without -A, do not descend into hidden directories (a big `.git` would cost time
  // and output); the starting point itself may be hidden.
  else if (!opts.showHidden) argv.push('(', '-name', '.*', '!', '-path', globLiteral(path), ')', '-prune', '-o');
  argv.push('-printf', FORMAT);
  const result = await runRemote(user, argv, deps.settings, { describeFailure: lsStyleFailure(path) });
  const rows = parse(result.stdout);
  const self = rows.find((r) => r.depth === 0);
  let files: WireFile[];
  if (!self || self.file.type !== 'd') {
    files = self ? [{ ...self.file, name: path }] : [];
  } else {
    const entries = rows.filter((r) => r.depth > 0 && (opts.showHidden || !hidden(r.rel)));
    files = opts.recursive ? lsRecursiveOrder(entries) : entries.sort(byName).map((r) => r.file);
  }
  return opts.numericUid ? files : withNames(files, deps.names);
}

/** `ls -ld` of `path` (links not followed): the entry named `path` as given. */
export async function fileEntry(user: UnixUser, path: string, deps: ListingDeps): Promise<WireFile> {
  const result = await runRemote(user, ['find', '-P', path, '-maxdepth', '0', '-printf', FORMAT], deps.settings, { describeFailure: lsStyleFailure(path) });
  const row = parse(result.stdout)[0];
  if (!row) throw new Error(`find printed no entry for ${path}`);
  const [file] = await withNames([{ ...row.file, name: path }], deps.names);
  return file;
}
