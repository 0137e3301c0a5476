/**
 * The right-sizing quick fix in a batch script: on an `#SBATCH` line of a script that was
 * submitted (its provenance), "Right-size: --mem=3G --time=00:15:00 (job 812 used …)" once the
 * job's use has been read, which sets the two lines as an edit the user saves or undoes; before
 * that, "Check the efficiency of job 812", which reads it (one short job). Nothing runs on the
 * cluster until the user picks an action.
 */
import * as vscode from 'vscode';
import { withRequest } from '../core/facts/efficiency';
import type { JobEfficiencies } from './jobEfficiency';
import type { ProvenanceStore } from './provenance';

export class RightSizeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly provenance: ProvenanceStore,
    private readonly efficiencies: JobEfficiencies,
  ) {}

  async provideCodeActions(doc: vscode.TextDocument, range: vscode.Range | vscode.Selection): Promise<vscode.CodeAction[]> {
    if (!/^#SBATCH\s/.test(doc.lineAt(range.start.line).text)) return [];
    const last = await this.provenance.lastOf(doc.uri.toString());
    if (!last) return [];
    const known = this.efficiencies.of(last);
    if (!known) {
      const check = new vscode.CodeAction(vscode.l10n.t('Check the efficiency of job {0}, this script\'s last run (a short job on the cluster)', last.jobId), vscode.CodeActionKind.QuickFix);
      check.command = { title: check.title, command: 'firecrest.showJobEfficiency', arguments: [last] };
      return [check];
    }
    if (!known.request) return [];
    const fix = new vscode.CodeAction(vscode.l10n.t('Right-size: {0} ({1})', known.request, known.used), vscode.CodeActionKind.QuickFix);
    fix.isPreferred = true;
    fix.edit = new vscode.WorkspaceEdit();
    fix.edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), withRequest(doc.getText(), known.next));
    return [fix];
  }
}
