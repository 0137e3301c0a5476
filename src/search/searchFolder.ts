/** Which remote folder a search (or Go to File) is about, and what it looks for first. */
import * as vscode from 'vscode';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import { EMPTY_SEARCH, type SearchBoxState } from './searchBox';

export const LAST_SEARCH_KEY = 'firecrest.search.last';

/** The folder given (a `firecrest:` URI), else the remote workspace folder (asked when several), else typed. */
export async function pickSearchFolder(arg: unknown): Promise<FirecrestUri | undefined> {
  if (arg instanceof vscode.Uri && arg.scheme === FIRECREST_SCHEME) return FirecrestUri.parse(arg);
  if (typeof arg === 'string' && arg.startsWith(`${FIRECREST_SCHEME}:`)) return FirecrestUri.parse(arg);
  const remote = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FIRECREST_SCHEME);
  if (remote.length === 1) return FirecrestUri.parse(remote[0].uri);
  if (remote.length > 1) {
    const pick = await vscode.window.showQuickPick(remote.map((f) => ({ label: f.name, description: f.uri.toString(true), folder: f })), { title: vscode.l10n.t('Search on Cluster: which folder?') });
    return pick ? FirecrestUri.parse(pick.folder.uri) : undefined;
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Search on Cluster: folder'),
    prompt: vscode.l10n.t('The remote folder to search, as a {0}:// URI', FIRECREST_SCHEME),
    value: active?.scheme === FIRECREST_SCHEME ? FirecrestUri.parse(active).dirname.toUri().toString(true) : `${FIRECREST_SCHEME}://`,
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        FirecrestUri.parse(v.trim());
        return undefined;
      } catch {
        return vscode.l10n.t('A {0}:// URI, e.g. {0}://daint/home/alice/project', FIRECREST_SCHEME);
      }
    },
  });
  return value === undefined ? undefined : FirecrestUri.parse(value.trim());
}

/** The editor's selection (one line) as the text to find, else the last search's. */
export function initialSearch(state: vscode.Memento): SearchBoxState {
  const saved = state.get<SearchBoxState>(LAST_SEARCH_KEY) ?? EMPTY_SEARCH;
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  return selected && !/[\r\n]/.test(selected) ? { ...saved, pattern: selected } : saved;
}
