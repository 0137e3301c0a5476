/**
 * The document a command without argument is about: the one in the editor area. While the Output
 * panel (or another panel's text view) has the focus, `window.activeTextEditor` is that view, not
 * the script the user is looking at: the editor area's active tab answers then.
 */
import * as vscode from 'vscode';

export function activeDocumentUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  // A panel's text view has no column of the editor area.
  if (editor && editor.viewColumn !== undefined && editor.document.uri.scheme !== 'output') return editor.document.uri;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}
