/**
 * The batch scripts open in editors: each one parsed once per version and tied to its target
 * system (resolved once, again when the setting or the connections change). Diagnostics,
 * completion, hover, code actions and the CodeLens all read from here.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import { parseSbatchScript } from '../core/sbatch/parser';
import type { SbatchScript } from '../core/sbatch/types';
import type { ConnectionService } from '../common/services';
import type { SbatchTarget } from './liveData';
import { resolveTarget, SYSTEM_SETTING } from './target';

/** Where the editor features apply: shell scripts and the batch-script file extensions. */
export const SBATCH_SELECTOR: vscode.DocumentSelector = [
  { language: 'shellscript' },
  { pattern: '**/*.{sbatch,slurm}' },
];

/** True for documents the features look at (before any parsing). */
export function isCandidate(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'shellscript' || /\.(sbatch|slurm)$/i.test(doc.uri.path);
}

export class SbatchDocuments extends Disposable {
  private readonly parsed = new Map<string, { version: number; script: SbatchScript }>();
  private readonly targets = new Map<string, Promise<SbatchTarget | undefined>>();
  private readonly _onDidChangeTargets = this._register(new vscode.EventEmitter<void>());
  /** Fires when targets may have changed (setting, connections): consumers recompute. */
  readonly onDidChangeTargets = this._onDidChangeTargets.event;

  constructor(private readonly connections: ConnectionService) {
    super();
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`firecrest.${SYSTEM_SETTING}`)) this.resetTargets();
    }));
    this._register(connections.onDidChange(() => this.resetTargets()));
    this._register(vscode.workspace.onDidCloseTextDocument((doc) => {
      this.parsed.delete(doc.uri.toString());
      this.targets.delete(doc.uri.toString());
    }));
  }

  /** The parsed script of this document version (parsed at most once per version). */
  script(doc: vscode.TextDocument): SbatchScript {
    const key = doc.uri.toString();
    const hit = this.parsed.get(key);
    if (hit?.version === doc.version) return hit.script;
    const script = parseSbatchScript(doc.getText());
    this.parsed.set(key, { version: doc.version, script });
    return script;
  }

  /** The system this document is checked against (undefined: offline checks only). */
  target(uri: vscode.Uri): Promise<SbatchTarget | undefined> {
    const key = uri.toString();
    let t = this.targets.get(key);
    if (!t) {
      t = resolveTarget(this.connections, uri).catch(() => undefined);
      this.targets.set(key, t);
    }
    return t;
  }

  private resetTargets(): void {
    this.targets.clear();
    this._onDidChangeTargets.fire();
  }
}
