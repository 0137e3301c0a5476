/**
 * "Submit to <system>" above the first `#SBATCH` line of a batch script: runs FirecREST: Submit
 * Job with the document and the system the script is checked against (the submit command asks
 * for the system itself when none is known).
 */
import * as vscode from 'vscode';
import type { SbatchDocuments } from './documents';

export class SbatchCodeLensProvider implements vscode.CodeLensProvider {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this._onDidChange.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly documents: SbatchDocuments) {
    // The lens names the target system: redraw when targets may have changed.
    this.subscription = documents.onDidChangeTargets(() => this._onDidChange.fire());
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const script = this.documents.script(doc);
    const first = script.directives[0];
    if (!script.hasDirectives || !first) return [];
    const target = await this.documents.target(doc.uri);
    const range = new vscode.Range(first.lineSpan.line, 0, first.lineSpan.line, 0);
    // The same flow as the title button: what the script leaves open is asked once, then remembered.
    const args = target ? { uri: doc.uri, profile: target.profile, system: target.system, ask: 'missing' } : doc.uri;
    return [
      new vscode.CodeLens(range, {
        title: target ? vscode.l10n.t('$(rocket) Submit to {0}', target.system) : '$(rocket) Submit…',
        tooltip: target ? vscode.l10n.t('Submit this script to {0} ({1}) with FirecREST', target.system, target.profile) : vscode.l10n.t('Submit this script with FirecREST'),
        command: 'firecrest.submitJob',
        arguments: [args],
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('Change options…'),
        tooltip: vscode.l10n.t('Submit with new answers for what the script leaves open (working directory, account, partition, reservation)'),
        command: 'firecrest.submitJobWithOptions',
        arguments: [doc.uri],
      }),
    ];
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}
