/**
 * Keeps the `firecrest.batchScript` context key true while the active editor holds a shell script
 * with `#SBATCH` lines, so Submit Job shows in the editor title only for batch scripts.
 */
import * as vscode from 'vscode';
import { parseSbatchScript } from '../core/sbatch/index';

export function trackBatchScriptContext(): vscode.Disposable {
  let last: boolean | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const update = () => {
    const doc = vscode.window.activeTextEditor?.document;
    // Directives live at the top; 20 kB is plenty and keeps typing in huge files cheap.
    const value = !!doc && doc.languageId === 'shellscript' && parseSbatchScript(doc.getText(new vscode.Range(0, 0, 400, 0))).hasDirectives;
    if (value === last) return;
    last = value;
    void vscode.commands.executeCommand('setContext', 'firecrest.batchScript', value);
  };
  update();
  return vscode.Disposable.from(
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document !== vscode.window.activeTextEditor?.document) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(update, 300);
    }),
    { dispose: () => timer && clearTimeout(timer) },
  );
}
