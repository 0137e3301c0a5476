/**
 * Batch-script editing: completion, hover, diagnostics with quick fixes and the Submit CodeLens
 * for shell scripts with `#SBATCH` lines, all fed by one per-system live-data cache.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import { SbatchCodeActionProvider } from './codeActions';
import { SbatchCodeLensProvider } from './codeLens';
import { SbatchCompletionProvider } from './completion';
import { SbatchDiagnostics } from './diagnostics';
import { SBATCH_SELECTOR, SbatchDocuments } from './documents';
import { SbatchHoverProvider } from './hover';
import { SbatchLiveData } from './liveData';

/** Registers the batch-script features; everything is released with the returned disposable. */
export function registerSbatch(services: ExtensionServices): vscode.Disposable {
  const log = services.log.withTag('sbatch');
  const liveData = new SbatchLiveData(services.connections, log);
  const documents = new SbatchDocuments(services.connections);
  const diagnostics = new SbatchDiagnostics(documents, liveData);
  const disposables: vscode.Disposable[] = [
    liveData,
    documents,
    diagnostics,
    vscode.languages.registerCompletionItemProvider(SBATCH_SELECTOR, new SbatchCompletionProvider(documents, liveData), '-', '=', ' ', ','),
    vscode.languages.registerHoverProvider(SBATCH_SELECTOR, new SbatchHoverProvider(documents, liveData)),
    vscode.languages.registerCodeActionsProvider(SBATCH_SELECTOR, new SbatchCodeActionProvider(diagnostics), SbatchCodeActionProvider.metadata),
  ];
  const lenses = new SbatchCodeLensProvider(documents);
  disposables.push(lenses, vscode.languages.registerCodeLensProvider(SBATCH_SELECTOR, lenses));
  // Tests and the bench count cache refreshes (each is partitions + reservations + userinfo) and
  // wait until no check or refresh is under way.
  services.testSeam.expose('sbatchStats', () => ({ refreshes: liveData.refreshCount, idle: !diagnostics.busy && liveData.refreshing === 0 }));
  services.testSeam.expose('sbatchClearCache', () => liveData.clear());
  return vscode.Disposable.from(...disposables.reverse());
}
