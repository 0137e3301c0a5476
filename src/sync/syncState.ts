/** What each mapping remembers in the workspace: its last sync and the changes waiting (as last counted). */
import * as vscode from 'vscode';
import type { ResolvedMapping } from './mappings';

const STATE_KEY = 'firecrest.sync.state';

export interface MappingState {
  /** epoch ms of the last sync that finished */
  at?: number;
  /** Local changes not yet sent (from the last look). */
  pending?: number;
}

export class SyncState implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ResolvedMapping>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly store: vscode.Memento) {}

  get(m: ResolvedMapping): MappingState {
    return (this.store.get<Record<string, MappingState>>(STATE_KEY) ?? {})[m.key] ?? {};
  }

  async set(m: ResolvedMapping, s: MappingState): Promise<void> {
    const all = this.store.get<Record<string, MappingState>>(STATE_KEY) ?? {};
    await this.store.update(STATE_KEY, { ...all, [m.key]: { ...all[m.key], ...s } });
    this.changed.fire(m);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
