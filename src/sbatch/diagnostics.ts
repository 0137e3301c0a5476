/**
 * The Problems-panel side: one DiagnosticCollection (source `FirecREST`) for batch scripts.
 * Offline problems come from the parser; live ones from the cached cluster data. Edits are
 * debounced and never wait for the network: a missing or stale cache starts one background
 * refresh, and its arrival recomputes the scripts of that system.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { Span } from '../core/sbatch/types';
import { isCandidate, type SbatchDocuments } from './documents';
import { liveChecks, type LiveProblem } from '../core/sbatch/liveChecks';
import { targetKey, type SbatchLiveData } from './liveData';

export const DIAGNOSTIC_SOURCE = 'FirecREST';

/** A diagnostic's range from a parser span. */
export function toRange(s: Span): vscode.Range {
  return new vscode.Range(s.line, s.start, s.line, s.end);
}

export class SbatchDiagnostics extends Disposable {
  private readonly collection = this._register(vscode.languages.createDiagnosticCollection('firecrest-sbatch'));
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Live problems of each document as last computed: the code actions read their fixes here. */
  private readonly live = new Map<string, LiveProblem[]>();
  /** Documents checked against each target key, to recompute when that target's data arrives. */
  private readonly byTarget = new Map<string, Set<string>>();
  /** Checks started and not yet finished (they await the document's target). */
  private checking = 0;

  constructor(
    private readonly documents: SbatchDocuments,
    private readonly liveData: SbatchLiveData,
    private readonly debounceMs = 250,
  ) {
    super();
    this._register(vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)));
    this._register(vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document, this.debounceMs)));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)));
    this._register(liveData.onDidRefresh((t) => {
      for (const uri of this.byTarget.get(targetKey(t)) ?? []) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
        if (doc) this.schedule(doc, 0);
      }
    }));
    this._register(documents.onDidChangeTargets(() => this.checkAll()));
    this._register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
    this.checkAll();
  }

  /** True while a check waits for its debounce or is running (tests wait for it to settle). */
  get busy(): boolean {
    return this.timers.size > 0 || this.checking > 0;
  }

  /** The live problem behind a diagnostic (same code and range), for its quick fixes. */
  problemFor(uri: vscode.Uri, d: vscode.Diagnostic): LiveProblem | undefined {
    return this.live.get(uri.toString())?.find((p) => p.code === diagnosticCode(d) && toRange(p.span).isEqual(d.range));
  }

  private checkAll(): void {
    for (const doc of vscode.workspace.textDocuments) this.schedule(doc, 0);
  }

  private schedule(doc: vscode.TextDocument, delayMs: number): void {
    if (!isCandidate(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      this.checking++;
      void this.check(doc).finally(() => this.checking--);
    }, delayMs));
  }

  private async check(doc: vscode.TextDocument): Promise<void> {
    if (doc.isClosed) return;
    const script = this.documents.script(doc);
    if (!script.hasDirectives && script.problems.length === 0) {
      this.forget(doc.uri);
      return;
    }
    const version = doc.version;
    const diagnostics = script.problems.map((p) => make(p.span, p.message, p.code, p.severity));
    let live: LiveProblem[] = [];
    const target = script.hasDirectives ? await this.documents.target(doc.uri) : undefined;
    if (doc.isClosed || doc.version !== version) return; // a newer check is scheduled
    if (target) {
      const key = targetKey(target);
      if (!this.byTarget.has(key)) this.byTarget.set(key, new Set());
      this.byTarget.get(key)!.add(doc.uri.toString());
      const snapshot = this.liveData.canFetch(target.profile) ? this.liveData.peek(target) : undefined;
      if (snapshot) live = liveChecks(script, snapshot, target.system, new Date());
    }
    this.live.set(doc.uri.toString(), live);
    for (const p of live) diagnostics.push(make(p.span, p.message, p.code, p.severity));
    this.collection.set(doc.uri, diagnostics);
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.live.delete(key);
    for (const set of this.byTarget.values()) set.delete(key);
    this.collection.delete(uri);
  }
}

function make(span: Span, message: string, code: string, severity: 'error' | 'warning'): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toRange(span), message, severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = code;
  return d;
}

/** The diagnostic's code as a string (VS Code allows a `{value, target}` object too). */
export function diagnosticCode(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) return undefined;
  return typeof c === 'object' ? String(c.value) : String(c);
}
