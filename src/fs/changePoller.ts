/**
 * Notices changes made on the cluster behind the editor's back. FirecREST has no change feed, so
 * the only way is to list again; this polls as little as that allows:
 *  - only folders VS Code watches (watch roots) and, below a recursive watch, the folders it listed
 *    recently (expanded in the Explorer), never a whole tree;
 *  - each folder backs off while nothing changes (3 s, doubling) and snaps back when something
 *    does; once it has been quiet a minute, it is listed at most once a minute;
 *  - nothing at all while the window is not focused or nothing is watched.
 * Free of `vscode`; the provider feeds it watch requests, listings and the window state.
 */
import { NotFoundError } from '../core/errors';
import type { FirecrestUri } from '../core/uri';
import { EntryType, type Listing } from './entries';
import { FsError } from './fsError';
import type { RemoteChange } from './remoteFileSystem';

export interface ChangePollerOptions {
  /** A folder's listing, from the cache when younger than `maxAgeMs`. */
  list(dir: FirecrestUri, maxAgeMs: number): Promise<Listing>;
  /** Whether a watched URI is a folder (file watches poll the parent folder). */
  isDirectory(uri: FirecrestUri): Promise<boolean>;
  emit(changes: RemoteChange[]): void;
  /** Listings younger than this are reused instead of asking again. */
  reuseMs?: number;
  baseIntervalMs?: number;
  maxIntervalMs?: number;
  /** A folder VS Code has not listed for this long is considered collapsed. */
  hotMs?: number;
  /** At most this many folders are polled (the most recently listed win). */
  maxFolders?: number;
  active?: boolean;
  now?: () => number;
  onError?(dir: FirecrestUri, e: unknown): void;
}

interface Watch {
  root: FirecrestUri;
  recursive: boolean;
  /** The folder polled for it, once known. */
  folder?: FirecrestUri;
}

interface FolderState {
  dir: FirecrestUri;
  snapshot?: Map<string, string>;
  intervalMs: number;
  nextAt: number;
  /** When VS Code itself last listed it (0 for watch roots never listed). */
  listedAt: number;
  /** Since when nothing changed in it (and VS Code did not list it). */
  quietSince: number;
}

/** A folder quiet this long is listed at most once per `maxIntervalMs`. */
const QUIET_MS = 60_000;

export class ChangePoller {
  private readonly watches = new Map<number, Watch>();
  private readonly folders = new Map<string, FolderState>();
  private nextId = 1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling = false;
  private active: boolean;
  private disposed = false;
  private readonly base: number;
  private readonly max: number;
  private readonly hot: number;
  private readonly now: () => number;

  constructor(private readonly opts: ChangePollerOptions) {
    this.base = opts.baseIntervalMs ?? 3000;
    this.max = opts.maxIntervalMs ?? 60_000;
    this.hot = opts.hotMs ?? 10 * 60_000;
    this.active = opts.active ?? true;
    this.now = opts.now ?? Date.now;
  }

  watch(root: FirecrestUri, recursive: boolean): { dispose(): void } {
    const id = this.nextId++;
    const w: Watch = { root, recursive };
    this.watches.set(id, w);
    this.opts.isDirectory(root).then(
      (isDir) => {
        if (!this.watches.has(id)) return;
        w.folder = isDir ? root : root.dirname;
        this.schedule();
      },
      () => {
        // Not there (yet): watch the parent so that its creation is seen.
        if (this.watches.has(id)) w.folder = root.dirname;
        this.schedule();
      },
    );
    return {
      dispose: () => {
        this.watches.delete(id);
        this.schedule();
      },
    };
  }

  /** VS Code listed `dir` (the Explorer expanded or refreshed it): poll it while it stays in use. */
  noteListed(dir: FirecrestUri, listing: Listing): void {
    const k = dir.toString();
    const state = this.folders.get(k) ?? { dir, intervalMs: this.base, nextAt: 0, listedAt: 0, quietSince: 0 };
    state.snapshot = snapshotOf(listing);
    state.listedAt = this.now();
    state.quietSince = this.now();
    state.intervalMs = this.base;
    state.nextAt = this.now() + this.base;
    this.folders.set(k, state);
    this.schedule();
  }

  /** Window focus: polling stops while unfocused and catches up soon after focus returns. */
  setActive(active: boolean): void {
    if (active === this.active) return;
    this.active = active;
    if (active) {
      const soon = this.now() + 250;
      for (const s of this.folders.values()) s.nextAt = Math.min(s.nextAt, soon);
    }
    this.schedule();
  }

  /** Folders polled right now (for tests and the bench). */
  polledFolders(): FirecrestUri[] {
    return [...this.candidates().values()].map((s) => s.dir);
  }

  dispose(): void {
    this.disposed = true;
    this.watches.clear();
    this.folders.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private candidates(): Map<string, FolderState> {
    const now = this.now();
    const out = new Map<string, FolderState>();
    const roots = [...this.watches.values()].filter((w) => w.folder);
    for (const w of roots) {
      const folder = w.folder as FirecrestUri;
      const k = folder.toString();
      let s = this.folders.get(k);
      if (!s) {
        s = { dir: folder, intervalMs: this.base, nextAt: now + this.base, listedAt: 0, quietSince: now };
        this.folders.set(k, s);
      }
      out.set(k, s);
    }
    const hot = [...this.folders.entries()]
      .filter(([k, s]) => !out.has(k) && now - s.listedAt <= this.hot && roots.some((w) => w.recursive && isUnder(s.dir, w.root)))
      .sort((a, b) => b[1].listedAt - a[1].listedAt)
      .slice(0, Math.max(0, (this.opts.maxFolders ?? 32) - out.size));
    for (const [k, s] of hot) out.set(k, s);
    // Forget folders nobody has looked at for a while (recent ones may gain a watch later).
    for (const [k, s] of [...this.folders.entries()]) if (!out.has(k) && now - s.listedAt > this.hot) this.folders.delete(k);
    return out;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed || !this.active || this.polling) return;
    const states = [...this.candidates().values()];
    if (states.length === 0) return;
    const due = Math.min(...states.map((s) => s.nextAt));
    this.timer = setTimeout(() => void this.tick(), Math.max(0, due - this.now()));
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.polling = true;
    try {
      // One folder after the other: a poll is never a burst of parallel requests.
      for (const s of this.candidates().values()) {
        if (this.disposed || !this.active) break;
        if (s.nextAt <= this.now()) await this.pollOne(s);
      }
    } finally {
      this.polling = false;
      this.schedule();
    }
  }

  private async pollOne(s: FolderState): Promise<void> {
    let changes: RemoteChange[] = [];
    try {
      const listing = await this.opts.list(s.dir, this.opts.reuseMs ?? 1000);
      const next = snapshotOf(listing);
      if (s.snapshot) changes = diff(s.dir, s.snapshot, next);
      s.snapshot = next;
    } catch (e) {
      // Only a folder that is gone is reported deleted: a refused or failed poll (429, the server
      // down or restarting) says nothing about it, and VS Code would mark open editors deleted.
      if (isGone(e)) {
        if (s.snapshot) changes = [{ kind: 'deleted', uri: s.dir }];
        s.snapshot = undefined;
      }
      this.opts.onError?.(s.dir, e);
    }
    const now = this.now();
    if (changes.length > 0) {
      s.quietSince = now;
      s.intervalMs = this.base;
    } else {
      // Doubling, but a listing that would fall after a quiet minute comes a full interval later.
      const doubled = Math.min(this.max, s.intervalMs * 2);
      s.intervalMs = now + doubled - s.quietSince > QUIET_MS ? this.max : doubled;
    }
    s.nextAt = now + s.intervalMs;
    if (changes.length > 0 && !this.disposed) this.opts.emit(changes);
  }
}

function isGone(e: unknown): boolean {
  return e instanceof NotFoundError || (e instanceof FsError && (e.code === 'FileNotFound' || e.code === 'FileNotADirectory'));
}

function snapshotOf(listing: Listing): Map<string, string> {
  const out = new Map<string, string>();
  // A folder's size and mtime change with its contents, which its own listing reports: compare
  // folders by type only so that a change deep down is not reported twice.
  for (const e of listing.entries.values()) out.set(e.name, e.type & EntryType.Directory ? `${e.type}` : `${e.type}:${e.size}:${e.mtime}`);
  return out;
}

function diff(dir: FirecrestUri, before: Map<string, string>, after: Map<string, string>): RemoteChange[] {
  const out: RemoteChange[] = [];
  for (const [name, sig] of after) {
    const old = before.get(name);
    if (old === undefined) out.push({ kind: 'created', uri: dir.joinPath(name) });
    else if (old !== sig) out.push({ kind: 'changed', uri: dir.joinPath(name) });
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ kind: 'deleted', uri: dir.joinPath(name) });
  return out;
}

function isUnder(dir: FirecrestUri, root: FirecrestUri): boolean {
  if (dir.system !== root.system || dir.profile !== root.profile) return false;
  return root.path === '/' || dir.path === root.path || dir.path.startsWith(root.path + '/');
}
