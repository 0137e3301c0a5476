/**
 * Sync's status bar item: the mapping of the active editor's folder (or the only one), its last
 * sync and the changes waiting; a click syncs. It also keeps the Explorer's and the editor's
 * Sync menus in step (context keys).
 */
import * as vscode from 'vscode';
import { activeDocumentUri } from '../common/activeDocument';
import { ContextKeys } from '../common/contextKeys';
import type { MappingStore, ResolvedMapping } from './mappings';
import type { SyncState } from './syncState';

export class SyncStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('firecrest.sync', vscode.StatusBarAlignment.Left, 90);
  private readonly subs: vscode.Disposable[];

  constructor(private readonly mappings: MappingStore, private readonly state: SyncState) {
    this.item.name = vscode.l10n.t('FirecREST Sync');
    this.subs = [
      state.onDidChange(() => this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
    ];
    this.update();
  }

  /** The mapping the item (and a sync without argument) is about. */
  current(): ResolvedMapping | undefined {
    const uri = activeDocumentUri();
    const all = this.mappings.all();
    return (uri && this.mappings.for(uri)) ?? (all.length === 1 ? all[0] : undefined);
  }

  update(): void {
    const editor = vscode.window.activeTextEditor;
    void vscode.commands.executeCommand('setContext', ContextKeys.inSyncedFolder, !!(editor && this.mappings.for(editor.document.uri)));
    void vscode.commands.executeCommand('setContext', ContextKeys.syncedFolders, this.mappings.all().map((x) => x.localRoot));
    const m = this.current();
    if (!m) {
      this.item.hide();
      return;
    }
    const s = this.state.get(m);
    const age = s.at ? Math.round((Date.now() - s.at) / 60_000) : undefined;
    this.item.text = `$(cloud-upload) ${s.pending ? `${s.pending}` : ''}`.trim();
    this.item.tooltip = new vscode.MarkdownString([
      `**${vscode.workspace.asRelativePath(m.localRoot)}** → \`${m.remote.toString()}\``,
      s.at ? vscode.l10n.t('Last sync: {0} min ago', age ?? 0) : vscode.l10n.t('Not synced yet'),
      s.pending ? vscode.l10n.t('{0} local change(s) waiting', s.pending) : vscode.l10n.t('No local changes waiting'),
      vscode.l10n.t('Click to sync.'),
    ].join('\n\n'));
    this.item.command = { title: vscode.l10n.t('Sync to Cluster'), command: 'firecrest.sync.toCluster' };
    this.item.show();
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.item.dispose();
  }
}
