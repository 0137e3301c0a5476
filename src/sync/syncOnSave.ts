/** Sync on save (`firecrest.sync.onSave`): debounced per mapping, one sync at a time, a failure said once until a sync works again. */
import * as vscode from 'vscode';
import { reportError } from '../common/commandWrapper';
import type { Log } from '../common/services';
import type { MappingStore, ResolvedMapping } from './mappings';
import { messageOf } from '../core/errors';

export class SyncOnSave implements vscode.Disposable {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failed = new Set<string>();
  private readonly sub: vscode.Disposable;

  constructor(mappings: MappingStore, private readonly sync: (m: ResolvedMapping) => Promise<unknown>, private readonly log: Log, private readonly debounceMs: number) {
    this.sub = vscode.workspace.onDidSaveTextDocument((doc) => {
      const m = mappings.for(doc.uri);
      if (m && vscode.workspace.getConfiguration('firecrest', doc.uri).get<boolean>('sync.onSave', false)) this.soon(m);
    });
  }

  private soon(m: ResolvedMapping): void {
    clearTimeout(this.timers.get(m.key));
    this.timers.set(m.key, setTimeout(() => {
      this.timers.delete(m.key);
      this.sync(m).then(
        () => this.failed.delete(m.key),
        (e: unknown) => {
          if (this.failed.has(m.key)) {
            this.log.warn(`sync on save: ${messageOf(e)}`);
            return;
          }
          this.failed.add(m.key);
          reportError(this.log, vscode.l10n.t('sync on save'), e);
        },
      );
    }, this.debounceMs));
  }

  dispose(): void {
    this.sub.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
  }
}
