/**
 * Quick fixes for the batch-script diagnostics: the live ones carry their choices (a partition
 * per action, the default first; the time clamped to the maximum or to end before maintenance; an
 * account), and an unknown option gets the known option it most likely misspells.
 */
import * as vscode from 'vscode';
import { SBATCH_OPTIONS } from '../core/sbatch/options';
import { DIAGNOSTIC_SOURCE, diagnosticCode, toRange, type SbatchDiagnostics } from './diagnostics';

export class SbatchCodeActionProvider implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly diagnostics: SbatchDiagnostics) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      if (diagnosticCode(d) === 'unknown-directive') {
        const fix = misspelling(doc.getText(d.range));
        if (fix) actions.push(action(vscode.l10n.t('Change to \'{0}\'', fix), doc, d.range, fix, d, true));
        continue;
      }
      const problem = this.diagnostics.problemFor(doc.uri, d);
      problem?.fix?.choices.forEach((c, i) => actions.push(action(c.title, doc, toRange(problem.fix!.span), c.text, d, i === 0)));
    }
    return actions;
  }
}

function action(title: string, doc: vscode.TextDocument, range: vscode.Range, text: string, d: vscode.Diagnostic, preferred: boolean): vscode.CodeAction {
  const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
  a.edit = new vscode.WorkspaceEdit();
  a.edit.replace(doc.uri, range, text);
  a.diagnostics = [d];
  a.isPreferred = preferred;
  return a;
}

/** The closest option name within two edits (`--partiton` → `--partition`), when there is one. */
function misspelling(written: string): string | undefined {
  if (!written.startsWith('--')) return undefined;
  const name = written.slice(2);
  let best: { long: string; distance: number } | undefined;
  for (const o of SBATCH_OPTIONS) {
    const distance = editDistance(name, o.long);
    if (distance <= 2 && (!best || distance < best.distance)) best = { long: o.long, distance };
  }
  return best ? `--${best.long}` : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
