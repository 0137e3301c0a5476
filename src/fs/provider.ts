/**
 * `vscode.FileSystemProvider` for `firecrest://` URIs: a thin adapter over the vscode-free
 * RemoteFileSystem (operations, cache) and ChangePoller (watching), which batches change events and
 * maps every failure through `toFileSystemError`.
 */
import * as vscode from 'vscode';
import { isPassing } from '../common/failureKinds';
import { isUnreachable } from '../common/reachability';
import { FirecrestUri, FIRECREST_SCHEME } from '../core/uri';
import { isCancellation, messageOf } from '../core/errors';
import type { Log } from '../common/services';
import type { TransferEvents, TransferKind } from '../common/transferEvents';
import { ChangePoller, type ChangePollerOptions } from './changePoller';
import { EntryType, type RemoteEntry } from './entries';
import { RemoteFileSystem, type RemoteChange, type RemoteFileSystemOptions } from './remoteFileSystem';
import { isProbedPath, toFileSystemError } from './toFileSystemError';

export type ProviderOptions = Omit<RemoteFileSystemOptions, 'onChange'> & {
  poller?: Partial<Omit<ChangePollerOptions, 'list' | 'isDirectory' | 'emit'>>;
};

const KIND: Record<RemoteChange['kind'], vscode.FileChangeType> = {
  created: vscode.FileChangeType.Created,
  changed: vscode.FileChangeType.Changed,
  deleted: vscode.FileChangeType.Deleted,
};

export function toVscodeUri(u: FirecrestUri): vscode.Uri {
  return vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: u.authority, path: u.path });
}

export class FirecrestFileSystemProvider implements vscode.FileSystemProvider, vscode.Disposable {
  readonly core: RemoteFileSystem;
  readonly poller: ChangePoller;
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private pending: vscode.FileChangeEvent[] = [];
  private transfers: TransferEvents | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    options: ProviderOptions,
    private readonly log: Log,
  ) {
    this.core = new RemoteFileSystem({
      ...options,
      onChange: (c) => this.fire(c),
      onListed: (dir, n, ms) => this.log.debug(`listed ${dir.toString()}: ${n} entries in ${ms} ms`),
    });
    this.poller = new ChangePoller({
      ...options.poller,
      list: (dir, maxAgeMs) => this.core.list(dir, maxAgeMs),
      isDirectory: async (uri) => ((await this.core.stat(uri)).type & EntryType.Directory) !== 0,
      emit: (c) => this.fire(c),
      onError: (dir, e) => this.log.debug(`poll ${dir.toString()}: ${messageOf(e)}`),
    });
  }

  /** Announces changes made outside the provider (commands such as chmod or symlink). */
  refresh(uri: vscode.Uri, created = false): void {
    const u = FirecrestUri.parse(uri);
    this.core.invalidate(u);
    this.core.invalidate(u.dirname);
    this.fire([{ kind: created ? 'created' : 'changed', uri: u }]);
  }

  watch(uri: vscode.Uri, options: { readonly recursive: boolean; readonly excludes: readonly string[] }): vscode.Disposable {
    const w = this.poller.watch(FirecrestUri.parse(uri), options.recursive);
    return new vscode.Disposable(() => w.dispose());
  }

  stat(uri: vscode.Uri): vscode.FileStat | Promise<vscode.FileStat> {
    let known: RemoteEntry | Promise<RemoteEntry>;
    try {
      known = this.core.stat(FirecrestUri.parse(uri));
    } catch (e) {
      // A URI that is not ours: reported (mapped and logged) like any failed stat.
      const failure = e instanceof Error ? e : new Error(String(e));
      return this.run('stat', uri, () => Promise.reject(failure));
    }
    // A child of the folder just listed is answered at once (an Explorer sorted by modification
    // time stats each of them).
    if (!(known instanceof Promise)) return fileStat(known);
    return this.run('stat', uri, async () => fileStat(await known));
  }

  readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    return this.run('readDirectory', uri, async (u) => {
      let listing;
      try {
        listing = await this.core.list(u);
      } catch (e) {
        if (!isUnreachable(e)) throw e;
        // Never an empty folder for a listing that failed: what was last listed here, while the
        // server does not answer (said once, with Retry); nothing, and the error, when never listed.
        this.unreachable.fire(u);
        listing = this.core.lastListing(u);
        if (!listing) throw e;
        this.log.info(`readDirectory ${uri.toString(true)}: the server does not answer; showing the listing of earlier`);
        return [...listing.entries.values()].map((x): [string, vscode.FileType] => [x.name, x.type as vscode.FileType]);
      }
      this.poller.noteListed(u, listing);
      return [...listing.entries.values()].map((e): [string, vscode.FileType] => [e.name, e.type as vscode.FileType]);
    });
  }

  private readonly unreachable = new vscode.EventEmitter<FirecrestUri>();
  /** A listing found the server not answering (the folder then shows what was last listed). */
  readonly onUnreachable = this.unreachable.event;

  readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return whenSlow(vscode.l10n.t('Reading {0} from the cluster…', uri.path.slice(uri.path.lastIndexOf('/') + 1)), this.run('readFile', uri, (u) => this.core.readFile(u)));
  }

  writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): Promise<void> {
    const saved = this.run('writeFile', uri, (u) => this.core.writeFile(u, content, options)).then(
      () => { this.failedSaves.delete(uri.toString()); },
      (e: unknown) => {
        // A save that failed because the server was away is tried again when it answers (`failedSaves`).
        if (isPassing(e) || (e instanceof vscode.FileSystemError && e.code === 'Unavailable')) this.failedSaves.add(uri.toString());
        throw e;
      },
    );
    return whenSlow(vscode.l10n.t('Saving {0} to the cluster…', uri.path.slice(uri.path.lastIndexOf('/') + 1)), saved);
  }

  /** Files whose last save failed while the server was away: saved again when it answers. */
  readonly failedSaves = new Set<string>();

  createDirectory(uri: vscode.Uri): Promise<void> {
    return this.run('createDirectory', uri, (u) => this.core.createDirectory(u));
  }

  delete(uri: vscode.Uri, options: { readonly recursive: boolean }): Promise<void> {
    return this.run('delete', uri, (u) => this.published('delete', uri, undefined, () => this.core.delete(u, options)));
  }

  rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
    return this.run('rename', oldUri, (u) => this.published('move', oldUri, newUri, () => this.core.rename(u, FirecrestUri.parse(newUri), options)));
  }

  copy(source: vscode.Uri, destination: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
    return this.run('copy', source, (u) => this.published('copy', source, destination, () => this.core.copy(u, FirecrestUri.parse(destination), options)));
  }

  /** Moves, copies and deletions (server-side, moves and copies as transfer jobs) are listed in the Transfer Centre. */
  publishTo(events: TransferEvents): vscode.Disposable {
    this.transfers = events;
    return new vscode.Disposable(() => {
      if (this.transfers === events) this.transfers = undefined;
    });
  }

  private async published<T>(kind: TransferKind, from: vscode.Uri, to: vscode.Uri | undefined, op: () => Promise<T>): Promise<T> {
    const handle = this.transfers?.start({ kind, remote: from.toString(), source: from.toString(), destination: to?.toString() });
    try {
      const result = await op();
      handle?.end();
      return result;
    } catch (e) {
      handle?.end(e, isCancellation(e));
      throw e;
    }
  }

  dispose(): void {
    this.unreachable.dispose();
    this.poller.dispose();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.emitter.dispose();
  }

  private async run<T>(op: string, uri: vscode.Uri, fn: (u: FirecrestUri) => Promise<T>): Promise<T> {
    try {
      return await fn(FirecrestUri.parse(uri));
    } catch (e) {
      const err = toFileSystemError(e, uri);
      this.logFailure(op, uri, err);
      // What the words replaced (a socket's error code), for whoever reads the log.
      if (isUnreachable(e) && e instanceof Error) this.log.debug(`${op} ${uri.toString(true)}: ${e.message}`);
      throw err;
    }
  }

  private logFailure(op: string, uri: vscode.Uri, err: vscode.FileSystemError): void {
    const line = `${op} ${uri.toString(true)}: ${err.message}`;
    if (err.code === 'FileNotFound') {
      // VS Code probes for .vscode, .git, settings... on its own: expected, never an error.
      if (isProbedPath(uri)) this.log.debug(line);
      else this.log.info(line);
    } else if (err.code === 'FileExists' || err.code === 'NoPermissions') {
      this.log.warn(line);
    } else {
      this.log.error(line);
    }
  }

  /** Batches events a few ms so a burst (a poll, a folder copy) becomes one onDidChangeFile. */
  private fire(changes: RemoteChange[]): void {
    for (const c of changes) this.pending.push({ type: KIND[c.kind], uri: toVscodeUri(c.uri) });
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const batch = this.pending;
      this.pending = [];
      if (batch.length > 0) this.emitter.fire(batch);
    }, 5);
  }
}

function fileStat(e: RemoteEntry): vscode.FileStat {
  return { type: e.type, size: e.size, mtime: e.mtime, ctime: e.mtime };
}

/** After SLOW_MS without an end, `work` shows in the status bar (an editor waiting on a slow or paused server says why). */
const SLOW_MS = 1500;
function whenSlow<T>(title: string, work: Promise<T>): Promise<T> {
  const t = setTimeout(() => void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, () => work.then(() => undefined, () => undefined)), SLOW_MS);
  return work.finally(() => clearTimeout(t));
}
