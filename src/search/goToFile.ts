/**
 * Go to File on Cluster: a quick pick over the file indexes of the remote folders (fuzzy on the
 * name); a stale index is rebuilt by a job on the cluster meanwhile, and shown when it arrives.
 */
import * as vscode from 'vscode';
import { reportError } from '../common/commandWrapper';
import type { Log } from '../common/services';
import { FIRECREST_SCHEME } from '../core/uri';
import { MAX_INDEXED_FILES, type FileIndexStore, type FolderIndex } from './fileIndex';
import { pickSearchFolder } from './searchFolder';
import { ageInWords } from './searchSettings';

/** Go to File on Cluster: a quick pick over the indexes of the remote folders; stale ones are rebuilt meanwhile. */
export async function goToFileOnCluster(indexes: FileIndexStore, log: Log, arg: unknown): Promise<vscode.Uri | undefined> {
  const given = arg instanceof vscode.Uri || typeof arg === 'string' ? await pickSearchFolder(arg) : undefined;
  const remote = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FIRECREST_SCHEME).map((f) => f.uri);
  const roots = given ? [vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: given.authority, path: given.path })] : remote;
  if (roots.length === 0) {
    const ref = await pickSearchFolder(undefined);
    if (!ref) return undefined;
    roots.push(vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: ref.authority, path: ref.path }));
  }
  const maxAgeMs = Math.max(1, vscode.workspace.getConfiguration('firecrest.search').get<number>('indexMaxAgeMinutes', 60)) * 60_000;
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { uri?: vscode.Uri }>();
  qp.placeholder = vscode.l10n.t('File name on the cluster (fuzzy)');
  qp.matchOnDescription = true;
  const refresh: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('refresh'), tooltip: vscode.l10n.t('Index Again') };
  qp.buttons = [refresh];
  const ac = new AbortController();
  const shown = new Map<string, FolderIndex>();
  let pending = 0;
  const render = () => {
    const items: (vscode.QuickPickItem & { uri?: vscode.Uri })[] = [];
    for (const root of roots) {
      const index = shown.get(root.toString());
      if (!index) continue;
      const name = roots.length > 1 ? `${root.path.slice(root.path.lastIndexOf('/') + 1)}/` : '';
      for (const rel of index.files) {
        const i = rel.lastIndexOf('/');
        items.push({ label: rel.slice(i + 1), description: name + (i > 0 ? rel.slice(0, i) : ''), uri: vscode.Uri.joinPath(root, rel) });
      }
    }
    qp.items = items;
    const oldest = Math.min(...[...shown.values()].map((i) => i.builtAt));
    const age = shown.size ? ageInWords(Date.now() - oldest) : '';
    const capped = [...shown.values()].some((i) => i.capped) ? ` · ${vscode.l10n.t('first {0} files only', MAX_INDEXED_FILES.toLocaleString())}` : '';
    qp.title = pending > 0
      ? vscode.l10n.t('Go to File on Cluster · indexing on the cluster…{0}', shown.size ? ` · ${vscode.l10n.t('{0} files, indexed {1}', items.length.toLocaleString(), age)}` : '')
      : vscode.l10n.t('Go to File on Cluster · {0} files, indexed {1}{2}', items.length.toLocaleString(), age, capped);
    qp.busy = pending > 0;
  };
  const rebuild = (root: vscode.Uri) => {
    pending++;
    render();
    indexes.build(root, ac.signal).then(
      (index) => { shown.set(root.toString(), index); },
      (e: unknown) => { if (!ac.signal.aborted) reportError(log, vscode.l10n.t('Go to File on Cluster'), e); },
    ).finally(() => { pending--; render(); });
  };
  for (const root of roots) {
    const index = await indexes.stored(root);
    if (index) shown.set(root.toString(), index);
    if (!index || Date.now() - index.builtAt > maxAgeMs) rebuild(root);
  }
  render();
  return new Promise((resolve) => {
    qp.onDidTriggerButton(() => { for (const root of roots) rebuild(root); });
    qp.onDidAccept(async () => {
      const uri = qp.selectedItems[0]?.uri;
      if (!uri) return;
      qp.hide();
      await vscode.window.showTextDocument(uri, { preview: true });
      resolve(uri);
    });
    // Closing the pick stops an index job still running.
    qp.onDidHide(() => { ac.abort(); qp.dispose(); resolve(undefined); });
    qp.show();
  });
}
