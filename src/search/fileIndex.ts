/**
 * Go to File on Cluster: the names of the files under a remote folder, listed by one `find` job
 * and kept in the extension's global storage (one file per folder), so that the quick pick opens
 * at once the next time. An index older than `firecrest.search.indexMaxAgeMinutes` is shown as it
 * is and rebuilt in the background; files created, deleted or renamed through VS Code update it at
 * once, without a job.
 */
import { sidecarScratch } from '../core/sidecar/sidecar';
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import { homeDirectory } from '../common/homeDirectory';
import type { ExtensionServices, Log } from '../common/services';
import { isOwnFile } from '../common/ownFiles';

/** Files listed at most per folder (the quick pick stays responsive). */
export const MAX_INDEXED_FILES = 200_000;

export interface FolderIndex {
  /** The folder, as a firecrest: URI string. */
  root: string;
  /** Epoch ms of the listing. */
  builtAt: number;
  /** Paths relative to the folder. */
  files: string[];
  /** The listing stopped at MAX_INDEXED_FILES. */
  capped: boolean;
}

export class FileIndexStore implements vscode.Disposable {
  private readonly cache = new Map<string, FolderIndex>();
  private readonly building = new Map<string, Promise<FolderIndex>>();
  private readonly dirty = new Set<string>();
  private saveTimer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Index jobs run so far (tests check that a created file needs none). */
  builds = 0;

  /**
   * `fileChanges`: the `firecrest:` file system's own events (its writes, deletes and renames, and
   * the changes its poller saw in open folders).
   */
  constructor(
    private readonly services: ExtensionServices,
    private readonly log: Log,
    private readonly partitionFor: (client: FirecrestClient, system: string) => Promise<string | undefined>,
    fileChanges?: vscode.Event<readonly vscode.FileChangeEvent[]>,
  ) {
    if (fileChanges) this.disposables.push(fileChanges((events) => void this.onFileChanges(events)));
  }

  private async onFileChanges(events: readonly vscode.FileChangeEvent[]): Promise<void> {
    if (this.cache.size === 0) return;
    const deleted = events.filter((e) => e.type === vscode.FileChangeType.Deleted).map((e) => e.uri);
    const created: vscode.Uri[] = [];
    for (const e of events) {
      if (e.type !== vscode.FileChangeType.Created || !this.indexed(e.uri)) continue;
      // Folders are not listed, only files (the provider's stat answers from its listing cache).
      const type = await Promise.resolve(vscode.workspace.fs.stat(e.uri)).then((st) => st.type, () => undefined);
      if (type !== undefined && (type & vscode.FileType.Directory) === 0) created.push(e.uri);
    }
    this.changed(created, deleted);
  }

  private indexed(u: vscode.Uri): boolean {
    for (const index of this.cache.values()) {
      const root = vscode.Uri.parse(index.root);
      if (u.scheme === FIRECREST_SCHEME && u.authority === root.authority && u.path.startsWith(`${root.path.replace(/\/+$/, '')}/`)) return true;
    }
    return false;
  }

  private fileOf(root: string): vscode.Uri {
    const name = createHash('sha256').update(root).digest('hex').slice(0, 24);
    return vscode.Uri.joinPath(this.services.context.globalStorageUri, 'file-index', `${name}.json`);
  }

  /** The stored index of `root`, if any (from memory, else from global storage). */
  async stored(root: vscode.Uri): Promise<FolderIndex | undefined> {
    const key = root.toString();
    const hit = this.cache.get(key);
    if (hit) return hit;
    try {
      const parsed = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(this.fileOf(key)))) as FolderIndex;
      if (parsed.root !== key || !Array.isArray(parsed.files)) return undefined;
      this.cache.set(key, parsed);
      return parsed;
    } catch {
      return undefined;
    }
  }

  /** Lists `root` on the cluster (one job); one listing per folder at a time. */
  build(root: vscode.Uri, signal?: AbortSignal): Promise<FolderIndex> {
    const key = root.toString();
    let p = this.building.get(key);
    if (!p) {
      p = this.list(root, signal).finally(() => this.building.delete(key));
      this.building.set(key, p);
    }
    return p;
  }

  private async list(root: vscode.Uri, signal?: AbortSignal): Promise<FolderIndex> {
    const ref = FirecrestUri.parse(root);
    const client = await this.services.connections.client(ref.profile);
    const profile = ref.profile ?? this.services.connections.defaultProfileName() ?? '';
    const home = await homeDirectory(this.services, client, profile, ref.system);
    const partition = await this.partitionFor(client, ref.system);
    const { searchOnCluster } = await import('../core/search/clusterSearch.js');
    const prefix = `${ref.path.replace(/\/+$/, '')}/`;
    const files: string[] = [];
    this.builds++;
    const started = Date.now();
    const summary = await searchOnCluster(client, ref.system, { root: ref.path, pattern: '', filesOnly: true, maxResults: MAX_INDEXED_FILES }, {
      signal,
      scratchDir: sidecarScratch(home),
      workingDirectory: home,
      partition,
      timeLimitMinutes: 10,
      onMatches: (m) => {
        for (const f of m) if (f.path.startsWith(prefix) && !isOwnFile(f.path)) files.push(f.path.slice(prefix.length));
      },
    });
    const index: FolderIndex = { root: root.toString(), builtAt: Date.now(), files: files.sort(), capped: summary.capped };
    this.log.info(`indexed ${ref.system}:${ref.path}: ${files.length} files in ${Date.now() - started} ms${summary.capped ? ' (capped)' : ''}`);
    this.cache.set(index.root, index);
    await this.save(index);
    return index;
  }

  private async save(index: FolderIndex): Promise<void> {
    await vscode.workspace.fs.writeFile(this.fileOf(index.root), new TextEncoder().encode(JSON.stringify(index)));
  }

  /** Files created, deleted or renamed through VS Code: the indexes that hold them change at once. */
  private changed(created: readonly vscode.Uri[], deleted: readonly vscode.Uri[]): void {
    const touched = new Set<FolderIndex>();
    for (const index of this.cache.values()) {
      const root = vscode.Uri.parse(index.root);
      const prefix = `${root.path.replace(/\/+$/, '')}/`;
      const rel = (u: vscode.Uri) => (u.scheme === FIRECREST_SCHEME && u.authority === root.authority && u.path.startsWith(prefix) ? u.path.slice(prefix.length) : undefined);
      for (const u of deleted) {
        const r = rel(u);
        if (r === undefined) continue;
        // A deleted folder takes its files along.
        const before = index.files.length;
        index.files = index.files.filter((f) => f !== r && !f.startsWith(`${r}/`));
        if (index.files.length !== before) touched.add(index);
      }
      for (const u of created) {
        const r = rel(u);
        if (r === undefined || index.files.includes(r)) continue;
        index.files.push(r);
        index.files.sort();
        touched.add(index);
      }
    }
    for (const i of touched) this.dirty.add(i.root);
    if (touched.size && !this.saveTimer) {
      this.saveTimer = setTimeout(() => {
        this.saveTimer = undefined;
        for (const key of this.dirty) {
          const i = this.cache.get(key);
          if (i) void this.save(i).catch((e: unknown) => this.log.warn(`file index not saved: ${String(e)}`));
        }
        this.dirty.clear();
      }, 1000);
    }
  }

  dispose(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    for (const d of this.disposables) d.dispose();
  }
}
