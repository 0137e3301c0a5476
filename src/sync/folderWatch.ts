/**
 * Watches the mapped local folders, so the count of changes waiting to be synced follows edits
 * made outside VS Code too (a build, a script, git): one watcher per mapping, recreated when the
 * mappings change, and one recount per mapping after a burst of changes.
 */
import * as vscode from 'vscode';
import type { ResolvedMapping } from './mappings';

export class MappedFolderWatch implements vscode.Disposable {
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly mappings: () => ResolvedMapping[],
    private readonly recount: (m: ResolvedMapping) => void,
    private readonly debounceMs: number,
  ) {
    this.update();
  }

  /** One watcher per current mapping (after a mapping was added, removed or changed). */
  update(): void {
    const current = new Map(this.mappings().map((m) => [m.key, m]));
    for (const [key, w] of [...this.watchers]) {
      if (current.has(key)) continue;
      w.dispose();
      this.watchers.delete(key);
      clearTimeout(this.timers.get(key));
      this.timers.delete(key);
    }
    for (const [key, m] of current) {
      if (this.watchers.has(key)) continue;
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(m.localRoot), '**/*'));
      const changed = (): void => this.soon(m);
      this.watchers.set(key, vscode.Disposable.from(w, w.onDidCreate(changed), w.onDidChange(changed), w.onDidDelete(changed)));
    }
  }

  private soon(m: ResolvedMapping): void {
    clearTimeout(this.timers.get(m.key));
    this.timers.set(m.key, setTimeout(() => {
      this.timers.delete(m.key);
      this.recount(m);
    }, this.debounceMs));
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
  }
}
