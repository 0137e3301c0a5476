/**
 * The FileSystemProvider semantics over a FirecREST client, free of `vscode` so that the bench can
 * drive it from Node. One listing answers `readDirectory` of a folder and `stat` of each child;
 * listings are cached a few seconds with single-flight; writes go through a temporary file and a
 * move so a failed save never truncates the target.
 */
import * as l10n from '@vscode/l10n';
import { isProbed } from './probes';
import type { FirecrestApi } from '../core/api';
import { InvalidInputError, NotFoundError, PermissionDeniedError, TooLargeError } from '../core/errors';
import { FirecrestUri } from '../core/uri';
import { jobLogsGone, replaceAtomically } from './atomicWrite';
import { EntryType, entryFromStat, fetchFileEntry, fetchListing, type Listing, type RemoteEntry } from './entries';
import { FsError, tooLargeForDirectTransfer } from './fsError';
import { TtlCache } from './ttlCache';

export type ChangeKind = 'created' | 'changed' | 'deleted';
export interface RemoteChange {
  kind: ChangeKind;
  uri: FirecrestUri;
}

export interface RemoteFileSystemOptions {
  /** The signed-in client of a profile (undefined: the default profile). */
  clientFor(profile: string | undefined): Promise<FirecrestApi>;
  /** `System.maxDirectTransferSize` of a system. */
  directLimit(profile: string | undefined, system: string): Promise<number>;
  /**
   * Files above the direct-transfer limit (staged transfers). Without it they are refused with
   * the clear "too large" error; with it, reads go through `read` and saves upload the temporary
   * file through `upload` (the move over the target stays the provider's).
   */
  largeFiles?: LargeFileTransfers;
  /** Every listing actually fetched (for the log). */
  onListed?: (dir: FirecrestUri, entries: number, ms: number) => void;
  /** Where our own writes are announced (the provider batches them into onDidChangeFile). */
  onChange?(changes: RemoteChange[]): void;
  /** Listings younger than this answer stat/readDirectory without a request (default 4 s). */
  ttlMs?: number;
  /** A folder's own stat may come from an older parent listing (types rarely change; default 60 s). */
  folderStatMaxAgeMs?: number;
  now?: () => number;
}

export interface LargeFileTransfers {
  read(uri: FirecrestUri, size: number): Promise<Uint8Array>;
  /** Creates `file` (a new temporary file) with `data`; `target` is what the user saves (shown in progress). */
  upload(file: FirecrestUri, data: Uint8Array, target?: FirecrestUri): Promise<void>;
}

/**
 * What a direct save left on the cluster is what was sent: the file's own line of `ls`, one request
 * that checks the size (a save cut short by a full quota or a dropped connection is shorter) and
 * gives the new modification time exactly as a folder listing reads it, so VS Code's look at the
 * saved file needs no listing of its folder. Undefined when the answer is not one file (a server
 * that lists a file path differently): the size is then taken from `stat`.
 */
async function verifySaved(api: FirecrestApi, file: FirecrestUri, data: Uint8Array): Promise<RemoteEntry | undefined> {
  const own = await fetchFileEntry(api, file.system, file.path, file.basename).catch((e: unknown) => {
    if (e instanceof NotFoundError) return undefined;
    throw e;
  });
  const size = own?.size ?? (await api.stat(file.system, file.path)).size;
  if (size === data.byteLength) return own;
  throw new FsError('Unavailable', l10n.t('{0} on the cluster is not what was saved ({1} bytes sent, {2} arrived): the save did not complete, the editor keeps your text. Save again.', file.path, data.byteLength, size));
}

export class RemoteFileSystem {
  readonly ttlMs: number;
  private readonly folderStatMaxAgeMs: number;
  private readonly listings: TtlCache<Listing>;
  private readonly singles: TtlCache<RemoteEntry>;
  private readonly limits: TtlCache<number>;
  private readonly now: () => number;
  /**
   * The listing the last stat was answered from: an Explorer sorted by modification time stats every
   * child of a folder it just listed, and building and hashing the folder's cache key 10,000 times
   * costs more than the rest.
   */
  private hot?: { profile?: string; system: string; dir: string; listing: Listing; at: number; generation: number };

  constructor(private readonly opts: RemoteFileSystemOptions) {
    this.ttlMs = opts.ttlMs ?? 4000;
    this.folderStatMaxAgeMs = opts.folderStatMaxAgeMs ?? 60_000;
    this.listings = new TtlCache<Listing>(200, opts.now);
    this.singles = new TtlCache<RemoteEntry>(500, opts.now);
    this.limits = new TtlCache<number>(50, opts.now);
    this.now = opts.now ?? Date.now;
  }

  /**
   * The listing of a folder, from the cache when younger than `maxAgeMs`. With `parentHint`, a
   * folder that the cached parent listing does not contain is missing without a request: that is
   * how stat answers VS Code's probes (.vscode/settings.json, .git/HEAD...). An explicit listing
   * (readDirectory, polling) never trusts the hint: the folder may be newer than the parent's listing.
   */
  async list(dir: FirecrestUri, maxAgeMs = this.ttlMs, parentHint = false): Promise<Listing> {
    if (parentHint && dir.path !== '/') {
      const parent = this.listings.peek(key(dir.dirname), this.ttlMs);
      const self = parent?.entries.get(dir.basename);
      if (parent && !self) throw new FsError('FileNotFound', l10n.t('{0}: no such file or directory', dir.path));
      if (self && !(self.type & EntryType.Directory)) throw new FsError('FileNotADirectory', l10n.t('{0} is not a directory', dir.path));
    }
    return this.listings.get(key(dir), maxAgeMs, async () => {
      const started = Date.now();
      const listing = await fetchListing(await this.api(dir), dir);
      this.opts.onListed?.(dir, listing.entries.size, Date.now() - started);
      return listing;
    });
  }

  /**
   * The entry `uri` names. Answered at once (no promise) when the folder listed last holds it:
   * an Explorer sorted by modification time stats every child of a folder it just listed (10,000
   * calls for a folder of 10,000), and the promise of an async function costs more than the lookup.
   * Callers await either.
   */
  stat(uri: FirecrestUri): RemoteEntry | Promise<RemoteEntry> {
    const slash = uri.path.lastIndexOf('/');
    const hot = this.hot;
    if (
      hot &&
      hot.generation === this.listings.generation &&
      slash === hot.dir.length &&
      slash > 0 &&
      hot.system === uri.system &&
      hot.profile === uri.profile &&
      uri.path.startsWith(hot.dir) &&
      this.now() - hot.at <= this.ttlMs
    ) {
      const hit = hot.listing.entries.get(uri.path.slice(slash + 1));
      if (hit) return hit;
    }
    return this.statListed(uri, slash);
  }

  private async statListed(uri: FirecrestUri, slash: number): Promise<RemoteEntry> {
    if (uri.path === '/') return { name: '/', type: EntryType.Directory, size: 0, mtime: 0, permissions: '' };
    const parentKey = parentKeyOf(uri);
    const cached = this.listings.peekEntry(parentKey, this.ttlMs);
    if (cached) {
      const fresh = cached.value;
      if (slash > 0) this.hot = { profile: uri.profile, system: uri.system, dir: uri.path.slice(0, slash), listing: fresh, at: cached.at, generation: this.listings.generation };
      const hit = fresh.entries.get(uri.basename);
      if (hit) return hit;
      // VS Code's own probes (.vscode, .git, ...) are answered from the listing: no request. Any
      // other name was asked for on purpose, maybe just created on the cluster (a job's output, an
      // attach result): the listing may predate it, so look once more.
      if (isProbed(uri.path)) throw new FsError('FileNotFound', l10n.t('{0}: no such file or directory', uri.path));
      this.invalidate(uri.dirname);
      const again = await this.list(uri.dirname);
      return again.entries.get(uri.basename) ?? this.notListed(uri);
    }
    const older = this.listings.peek(parentKey, this.folderStatMaxAgeMs)?.entries.get(uri.basename);
    if (older && older.type & EntryType.Directory) return older;
    const dir = uri.dirname;
    let parent: Listing;
    try {
      // A folder its parent's listing lacks is taken as missing only for VS Code's own probes: any
      // other path was asked for on purpose, and the folder may be newer than that listing (a job
      // made it), so it is listed.
      parent = await this.list(dir, this.ttlMs, isProbed(uri.path));
    } catch (e) {
      // The parent may be unreadable (group scratch roots are often --x) or outside the configured
      // file systems: ask about the entry itself.
      if (e instanceof PermissionDeniedError || e instanceof InvalidInputError) return this.statSingle(uri);
      if (e instanceof FsError && e.code === 'FileNotADirectory') throw new FsError('FileNotFound', l10n.t('{0}: no such file or directory', uri.path));
      throw e;
    }
    return parent.entries.get(uri.basename) ?? (isProbed(uri.path) ? this.notFound(uri) : this.notListed(uri));
  }

  private notFound(uri: FirecrestUri): never {
    throw new FsError('FileNotFound', l10n.t('{0}: no such file or directory', uri.path));
  }

  /**
   * A name the parent's listing does not hold may still exist under it: a server without a UTF-8
   * locale lists non-ASCII names escaped, so the listing names them differently. Asked for directly
   * before it counts as missing.
   */
  private async notListed(uri: FirecrestUri): Promise<RemoteEntry> {
    try {
      return await this.statSingle(uri);
    } catch (e) {
      if (e instanceof NotFoundError) this.notFound(uri);
      throw e;
    }
  }

  private statSingle(uri: FirecrestUri): Promise<RemoteEntry> {
    return this.singles.get(key(uri), this.ttlMs, async () => {
      const api = await this.api(uri);
      const st = await api.stat(uri.system, uri.path, { dereference: true });
      return entryFromStat(uri.basename, st, false);
    });
  }

  /** The last listing of `dir` this session, however old (undefined when never listed or since changed here). */
  lastListing(dir: FirecrestUri): Listing | undefined {
    return this.listings.peek(key(dir), Number.POSITIVE_INFINITY);
  }

  async readDirectory(dir: FirecrestUri): Promise<[string, number][]> {
    const { entries } = await this.list(dir);
    const out = new Array<[string, number]>(entries.size);
    let i = 0;
    for (const e of entries.values()) out[i++] = [e.name, e.type];
    return out;
  }

  async readFile(uri: FirecrestUri): Promise<Uint8Array> {
    const limit = await this.directLimit(uri);
    // VS Code stats before reading, so this is normally served by the listing it just made; a
    // caller that did not (workspace.fs.readFile) pays one listing to learn the size first.
    const entry = await this.statForRead(uri);
    if (entry.type & EntryType.Directory) throw new FsError('FileIsADirectory', l10n.t('{0} is a directory', uri.path));
    const large = this.opts.largeFiles;
    if (entry.size > limit) {
      if (large) return large.read(uri, entry.size);
      throw tooLargeForDirectTransfer(uri.path, entry.size, limit);
    }
    const api = await this.api(uri);
    try {
      return await api.downloadSmall(uri.system, uri.path);
    } catch (e) {
      if (!(e instanceof TooLargeError)) throw e;
      if (large) return large.read(uri, entry.size);
      throw tooLargeForDirectTransfer(uri.path, undefined, limit);
    }
  }

  /** A read names a file someone expects to exist: a cached "missing" is checked once more. */
  private async statForRead(uri: FirecrestUri): Promise<RemoteEntry> {
    const cached = this.listings.peek(key(uri.dirname), this.ttlMs) !== undefined;
    try {
      return await this.stat(uri);
    } catch (e) {
      if (!cached || !(e instanceof FsError && e.code === 'FileNotFound')) throw e;
      this.invalidate(uri.dirname);
      return this.stat(uri);
    }
  }

  async writeFile(uri: FirecrestUri, data: Uint8Array, flags: { create: boolean; overwrite: boolean }): Promise<void> {
    const dir = uri.dirname;
    const parent = await this.listForWrite(dir);
    const entry = parent.entries.get(uri.basename);
    if (entry && entry.type & EntryType.Directory) throw new FsError('FileIsADirectory', l10n.t('{0} is a directory', uri.path));
    if (!entry && !flags.create) throw new FsError('FileNotFound', l10n.t('{0}: no such file or directory', uri.path));
    if (entry && !flags.overwrite) throw new FsError('FileExists', l10n.t('{0} already exists', uri.path));
    const limit = await this.directLimit(uri);
    const large = this.opts.largeFiles;
    if (data.byteLength > limit && !large) throw tooLargeForDirectTransfer(uri.path, data.byteLength, limit);
    const api = await this.api(uri);
    const upload = (file: FirecrestUri, bytes: Uint8Array, shownAs?: FirecrestUri) =>
      large && bytes.byteLength > limit ? large.upload(file, bytes, shownAs) : api.uploadSmall(file.system, file.dirname.path, file.basename, bytes);
    // Saving through a link writes the link's target, as an editor on a local disk would.
    const linkTarget = entry && entry.type & EntryType.SymbolicLink ? entry.linkTarget : undefined;
    const target = linkTarget ? resolveLink(dir, linkTarget) : uri;
    let saved: RemoteEntry | undefined;
    try {
      if (data.byteLength <= limit) {
        // A save is one direct upload, no batch job (at a real site a job queues on the transfer
        // partition for seconds to minutes, and auto-save would start one per pause in typing).
        // The server writes over the file (keeping its mode); what arrived is then checked, so a
        // silent truncation is reported and the editor stays dirty.
        await api.uploadSmall(target.system, target.dirname.path, target.basename, data);
        const own = await verifySaved(api, target, data);
        if (own && entry && !linkTarget) saved = { ...entry, size: own.size, mtime: own.mtime };
      } else {
        // Staged: the upload lands under a temporary name and a job moves it over the target.
        // A link's own mode (rwxrwxrwx) says nothing about its target's: keep the target's as it is.
        await replaceAtomically(api, upload, target, data, linkTarget ? undefined : entry?.permissions, (d) => this.invalidate(d));
      }
    } finally {
      // A save over a file: its folder's listing stays, with the file's new line in it (a save is
      // then two requests); anything else lists the folder again.
      if (!saved || !this.listings.patch(key(dir), (l) => ({ entries: new Map(l.entries).set(uri.basename, saved as RemoteEntry) }))) this.invalidate(dir);
      if (!target.dirname.equals(dir)) this.invalidate(target.dirname);
    }
    this.opts.onChange?.([{ kind: entry ? 'changed' : 'created', uri }]);
  }

  async createDirectory(uri: FirecrestUri): Promise<void> {
    const parent = await this.listForWrite(uri.dirname);
    if (parent.entries.has(uri.basename)) throw new FsError('FileExists', l10n.t('{0} already exists', uri.path));
    const api = await this.api(uri);
    try {
      await api.mkdir(uri.system, uri.path, { parents: false });
    } finally {
      this.invalidate(uri.dirname);
    }
    this.opts.onChange?.([{ kind: 'created', uri }]);
  }

  async delete(uri: FirecrestUri, opts: { recursive: boolean }): Promise<void> {
    const entry = await this.stat(uri);
    const isRealDir = entry.type === EntryType.Directory;
    if (isRealDir && !opts.recursive) {
      const own = await this.list(uri, 0);
      if (own.entries.size > 0) throw new FsError('NotEmpty', l10n.t('{0} is not empty', uri.path));
    }
    const api = await this.api(uri);
    try {
      await api.remove(uri.system, uri.path);
    } finally {
      this.invalidate(uri.dirname);
      this.invalidateTree(uri);
    }
    this.opts.onChange?.([{ kind: 'deleted', uri }]);
  }

  rename(from: FirecrestUri, to: FirecrestUri, opts: { overwrite: boolean }): Promise<void> {
    return this.transfer('move', from, to, opts);
  }

  copy(from: FirecrestUri, to: FirecrestUri, opts: { overwrite: boolean }): Promise<void> {
    return this.transfer('copy', from, to, opts);
  }

  private async transfer(op: 'move' | 'copy', from: FirecrestUri, to: FirecrestUri, opts: { overwrite: boolean }): Promise<void> {
    if (from.system !== to.system || from.profile !== to.profile) {
      throw new FsError('Unavailable', l10n.t('{0} between systems is not supported ({1} -> {2})', op === 'move' ? 'Moving' : 'Copying', from.system, to.system));
    }
    const source = await this.stat(from);
    if (from.equals(to)) return;
    const existing = (await this.listForWrite(to.dirname)).entries.get(to.basename);
    if (existing && !opts.overwrite) throw new FsError('FileExists', l10n.t('{0} already exists', to.path));
    const api = await this.api(from);
    try {
      // mv/cp onto an existing folder would put the source inside it; VS Code means "replace".
      if (existing && (existing.type & EntryType.Directory || source.type & EntryType.Directory)) {
        await api.remove(to.system, to.path);
      }
      const job = op === 'move' ? await api.move(from.system, from.path, to.path) : await api.copy(from.system, from.path, to.path);
      jobLogsGone(to, job, (dir) => this.invalidate(dir));
    } finally {
      this.invalidate(to.dirname);
      this.invalidateTree(to);
      if (op === 'move') {
        this.invalidate(from.dirname);
        this.invalidateTree(from);
      }
    }
    const changes: RemoteChange[] = [{ kind: existing ? 'changed' : 'created', uri: to }];
    if (op === 'move') changes.unshift({ kind: 'deleted', uri: from });
    this.opts.onChange?.(changes);
  }

  /** Forgets a folder's listing (after a change made elsewhere, e.g. chmod from a command). */
  invalidate(dir: FirecrestUri): void {
    const k = key(dir);
    this.listings.invalidate((x) => x === k);
    this.singles.invalidate((x) => x.startsWith(k.endsWith('/') ? k : k + '/') || x === k);
  }

  /** Forgets a folder and everything cached below it. */
  invalidateTree(dir: FirecrestUri): void {
    const k = key(dir);
    const below = k.endsWith('/') ? k : k + '/';
    const hit = (x: string) => x === k || x.startsWith(below);
    this.listings.invalidate(hit);
    this.singles.invalidate(hit);
  }

  /** Parent listings used to decide create/overwrite: a missing parent is FileNotFound. */
  private async listForWrite(dir: FirecrestUri): Promise<Listing> {
    try {
      return await this.list(dir);
    } catch (e) {
      if (e instanceof NotFoundError || (e instanceof FsError && e.code === 'FileNotADirectory')) {
        throw new FsError('FileNotFound', l10n.t('{0}: no such directory', dir.path), { cause: e });
      }
      throw e;
    }
  }

  private directLimit(uri: FirecrestUri): Promise<number> {
    // System limits change with a server reconfiguration only: a long-lived cache is right.
    return this.limits.get(`${uri.profile ?? ''}\0${uri.system}`, 10 * 60_000, () => this.opts.directLimit(uri.profile, uri.system));
  }

  private api(uri: FirecrestUri): Promise<FirecrestApi> {
    return this.opts.clientFor(uri.profile);
  }
}

function resolveLink(dir: FirecrestUri, linkTarget: string): FirecrestUri {
  return linkTarget.startsWith('/') ? dir.with({ path: linkTarget }) : dir.joinPath(linkTarget);
}

function key(uri: FirecrestUri): string {
  return `${uri.profile ?? ''}\0${uri.system}\0${uri.path}`;
}

/** `key(uri.dirname)` without building the parent URI. */
function parentKeyOf(uri: FirecrestUri): string {
  const i = uri.path.lastIndexOf('/');
  return `${uri.profile ?? ''}\0${uri.system}\0${i <= 0 ? '/' : uri.path.slice(0, i)}`;
}
