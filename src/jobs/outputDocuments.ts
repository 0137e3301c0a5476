/**
 * Job output as read-only documents (`firecrest-output:`): stdout or stderr of a job in an ordinary
 * editor, so search, folding and copy work. The document grows while the job runs: the file is
 * read by byte offset (never a byte twice), only while an editor shows it, at the streamer's
 * adaptive rate; at the job's end one last line says how it ended. Alerts (the regexes of
 * `firecrest.output.alerts`) are highlighted; while the job runs, the first match of each rule
 * raises one notification per job.
 */
import * as vscode from 'vscode';
import { endingOf } from '../common/jobFormat';
import type { Log } from '../common/services';
import type { FirecrestApi } from '../core/api';
import { AlertScanner, compileAlertRules, type AlertMatch } from './outputAlerts';
import { OutputStreamer, type StreamResult } from './outputStreamer';
import { messageOf } from '../core/errors';

export const OUTPUT_SCHEME = 'firecrest-output';

export interface OutputTarget {
  profile: string;
  system: string;
  jobId: string;
  stream: 'stdout' | 'stderr';
  /** The file on the cluster. */
  path: string;
}

/** `firecrest-output://<system>/<jobId>/<file name>?profile&stream&path`: the tab shows the file's name. */
export function outputUri(t: OutputTarget): vscode.Uri {
  const name = t.path.slice(t.path.lastIndexOf('/') + 1) || `${t.jobId}.${t.stream}`;
  const query = new URLSearchParams({ profile: t.profile, stream: t.stream, path: t.path }).toString();
  return vscode.Uri.from({ scheme: OUTPUT_SCHEME, authority: t.system, path: `/${t.jobId}/${name}`, query });
}

function targetOf(uri: vscode.Uri): OutputTarget | undefined {
  const q = new URLSearchParams(uri.query);
  const jobId = uri.path.split('/')[1];
  const stream = q.get('stream');
  const path = q.get('path');
  const profile = q.get('profile');
  if (!jobId || !path || profile === null || (stream !== 'stdout' && stream !== 'stderr')) return undefined;
  return { profile, system: uri.authority, jobId, stream, path };
}

/** Above this size only the end of the file is shown (a document is held in memory, twice). */
const BACKLOG_BYTES = 20 << 20;
const TAIL_BYTES = 2 << 20;
/** Content changes are told to VS Code at most this often (it re-reads the whole document). */
const CHANGE_EVERY_MS = 250;

class OutputSession implements vscode.Disposable {
  private readonly chunks: string[] = [];
  private joined = '';
  /** The last line, once the job ended (or why following stopped). */
  ending: string | undefined;
  note: string | undefined;
  result: StreamResult | undefined;
  streamer: OutputStreamer | undefined;
  readonly scanner: AlertScanner;
  /** Rules already announced for this job. */
  readonly notified = new Set<string>();
  private readonly abort = new AbortController();
  private visibleWaiters: (() => void)[] = [];
  private visible = false;
  private started = false;
  private pendingChange: NodeJS.Timeout | undefined;

  constructor(
    readonly uri: vscode.Uri,
    readonly target: OutputTarget,
    private readonly owner: OutputDocuments,
  ) {
    this.scanner = new AlertScanner(owner.rules());
  }

  get text(): string {
    if (this.chunks.length > 0) {
      this.joined += this.chunks.join('');
      this.chunks.length = 0;
    }
    return this.ending === undefined ? this.joined : `${this.joined}${this.joined === '' || this.joined.endsWith('\n') ? '' : '\n'}${this.ending}\n`;
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible) {
      const waiters = this.visibleWaiters;
      this.visibleWaiters = [];
      for (const w of waiters) w();
    }
  }

  start(client: FirecrestApi, chunkBytes: number, running: boolean): void {
    if (this.started) return;
    this.started = true;
    const t = this.target;
    this.streamer = new OutputStreamer({
      client,
      system: t.system,
      jobId: t.jobId,
      path: t.path,
      signal: this.abort.signal,
      chunkBytes,
      backlogBytes: BACKLOG_BYTES,
      tailBytes: TAIL_BYTES,
      write: (text) => this.append(text, running),
      note: (text) => {
        this.note = text;
        this.changed();
      },
      askBacklog: () => Promise.resolve('tail'),
      ready: () => this.whenVisible(),
    });
    this.streamer.run().then(
      (r) => this.finish(r),
      (e: unknown) => {
        this.owner.log.warn(`output of job ${t.jobId} (${t.stream}): ${messageOf(e)}`);
        this.finish({ reason: 'stopped' }, vscode.l10n.t('[Stopped following: {0}]', messageOf(e)));
      },
    );
  }

  private whenVisible(): Promise<void> {
    if (this.visible) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const signal = this.abort.signal;
      if (signal.aborted) return reject(new DOMException('Aborted', 'AbortError'));
      const onAbort = () => reject(new DOMException('Aborted', 'AbortError'));
      signal.addEventListener('abort', onAbort, { once: true });
      this.visibleWaiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  private append(text: string, running: boolean): void {
    this.note = undefined;
    this.chunks.push(text);
    const added = this.scanner.append(text);
    if (running && this.result === undefined) this.owner.announce(this, added);
    this.changed();
  }

  private finish(r: StreamResult, stopped?: string): void {
    if (this.abort.signal.aborted && r.reason === 'stopped') return;
    this.result = r;
    this.scanner.flush();
    if (r.reason === 'ended' && r.job) this.ending = `[Job ${this.target.jobId} ${endingOf(r.job)}.]`;
    else this.ending = stopped ?? vscode.l10n.t('[Stopped following.]');
    this.note = undefined;
    this.changed(true);
  }

  /** Tells VS Code the content changed, at most every CHANGE_EVERY_MS (at once for the last change). */
  changed(now = false): void {
    if (now) {
      if (this.pendingChange) clearTimeout(this.pendingChange);
      this.pendingChange = undefined;
      this.owner.fire(this.uri);
      return;
    }
    this.pendingChange ??= setTimeout(() => {
      this.pendingChange = undefined;
      this.owner.fire(this.uri);
    }, CHANGE_EVERY_MS);
  }

  dispose(): void {
    this.abort.abort();
    if (this.pendingChange) clearTimeout(this.pendingChange);
  }
}

export class OutputDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly sessions = new Map<string, OutputSession>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('inputValidation.errorBackground'),
    border: '1px solid',
    borderColor: new vscode.ThemeColor('inputValidation.errorBorder'),
    overviewRulerColor: new vscode.ThemeColor('editorError.foreground'),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
  });
  private readonly placeholder = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('descriptionForeground'), fontStyle: 'italic' },
  });
  private readonly disposables: vscode.Disposable[] = [];
  private warnedInvalid = false;
  /** Documents whose language is being set (VS Code closes and reopens them for that). */
  private readonly relabelling = new Set<string>();

  constructor(readonly log: Log) {
    this.disposables.push(
      this.changeEmitter,
      this.highlight,
      this.placeholder,
      vscode.window.onDidChangeVisibleTextEditors(() => this.updateVisibility()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === OUTPUT_SCHEME) this.decorate(e.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme !== OUTPUT_SCHEME || this.relabelling.has(d.uri.toString())) return;
        this.sessions.get(d.uri.toString())?.dispose();
        this.sessions.delete(d.uri.toString());
      }),
    );
  }

  /** The alert rules of the settings (an invalid one is skipped, with one warning). */
  rules(): ReturnType<typeof compileAlertRules>['rules'] {
    const { rules, invalid } = compileAlertRules(vscode.workspace.getConfiguration('firecrest.output').get<unknown[]>('alerts') ?? []);
    if (invalid.length && !this.warnedInvalid) {
      this.warnedInvalid = true;
      void vscode.window.showWarningMessage(vscode.l10n.t('Some firecrest.output.alerts are not valid regular expressions and are ignored: {0}', invalid.join('; ')));
    }
    return rules;
  }

  /** Opens (or shows again) the output document of `target`; `running`: the job had not ended when asked. */
  async open(target: OutputTarget, client: FirecrestApi, chunkBytes: number, running: boolean): Promise<vscode.Uri> {
    const uri = outputUri(target);
    const key = uri.toString();
    let session = this.sessions.get(key);
    if (session?.result && session.result.reason !== 'ended') {
      // Following stopped (an error, not the job's end): a fresh look.
      session.dispose();
      this.sessions.delete(key);
      session = undefined;
    }
    if (!session) {
      session = new OutputSession(uri, target, this);
      this.sessions.set(key, session);
    }
    session.start(client, chunkBytes, running);
    const doc = await vscode.workspace.openTextDocument(uri);
    // The Log language colours levels, dates and paths (built in to VS Code). Setting it closes
    // and reopens the document: that close must not end the session.
    if (doc.languageId !== 'log') {
      this.relabelling.add(key);
      try {
        await Promise.resolve(vscode.languages.setTextDocumentLanguage(doc, 'log')).catch(() => undefined);
      } finally {
        this.relabelling.delete(key);
      }
    }
    await vscode.window.showTextDocument(uri, { preview: false });
    this.updateVisibility();
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const session = this.sessions.get(uri.toString());
    if (session) return session.text;
    // A document restored from a previous window: nothing follows it until it is opened again.
    const t = targetOf(uri);
    return t ? '' : vscode.l10n.t('Not a job output: {0}', uri.toString());
  }

  fire(uri: vscode.Uri): void {
    this.changeEmitter.fire(uri);
    // The placeholder text can change without the content changing.
    this.decorate(uri);
  }

  /** One notification per job and rule, while the job runs, with Open. */
  announce(session: OutputSession, added: AlertMatch[]): void {
    for (const m of added) {
      if (session.notified.has(m.rule)) continue;
      session.notified.add(m.rule);
      const open = vscode.l10n.t('Open');
      const t = session.target;
      void vscode.window.showWarningMessage(vscode.l10n.t('Job {0} on {1}: its {2} matched "{3}" (line {4}).', t.jobId, t.system, t.stream, m.rule, m.line + 1), open).then(async (pick) => {
        if (pick !== open) return;
        const editor = await vscode.window.showTextDocument(session.uri, { preview: false });
        const range = new vscode.Range(m.line, m.start, m.line, m.end);
        editor.selection = new vscode.Selection(range.start, range.end);
        editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      });
    }
  }

  /** Go to First Error: selects the first alert of the active output document. */
  async goToFirstAlert(): Promise<AlertMatch | undefined> {
    const editor = vscode.window.activeTextEditor;
    const session = editor && this.sessions.get(editor.document.uri.toString());
    if (!editor || !session) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Go to First Error works in a job output opened with FirecREST: Open Job Output.'));
      return undefined;
    }
    const first = session.scanner.matches[0];
    if (!first) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No line of this output matches firecrest.output.alerts.'));
      return undefined;
    }
    const range = new vscode.Range(first.line, first.start, first.line, first.end);
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return first;
  }

  /** What a document holds and how it was read (test hook). */
  snapshot(uri: string): { text: string; ending?: string; alerts: AlertMatch[]; notified: string[]; stats?: OutputStreamer['stats']; done: boolean } | undefined {
    const s = this.sessions.get(uri);
    if (!s) return undefined;
    return { text: s.text, ending: s.ending, alerts: [...s.scanner.matches], notified: [...s.notified], stats: s.streamer && { ...s.streamer.stats }, done: s.result !== undefined };
  }

  private updateVisibility(): void {
    const shown = new Set(vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()));
    for (const [key, s] of this.sessions) s.setVisible(shown.has(key));
    for (const key of shown) if (this.sessions.has(key)) this.decorate(vscode.Uri.parse(key));
  }

  private decorate(uri: vscode.Uri): void {
    const session = this.sessions.get(uri.toString());
    if (!session) return;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== uri.toString()) continue;
      const lines = editor.document.lineCount;
      const ranges = session.scanner.matches.filter((m) => m.line < lines).map((m) => new vscode.Range(m.line, m.start, m.line, m.end));
      editor.setDecorations(this.highlight, ranges);
      // Empty without copying the document's text (this runs at every change of a growing output).
      const empty = editor.document.lineCount === 1 && editor.document.lineAt(0).text === '';
      const waiting = empty ? session.note ?? (session.result ? undefined : `reading ${session.target.path}…`) : undefined;
      editor.setDecorations(this.placeholder, waiting ? [{ range: new vscode.Range(0, 0, 0, 0), renderOptions: { after: { contentText: waiting } } }] : []);
    }
  }

  dispose(): void {
    for (const s of this.sessions.values()) s.dispose();
    this.sessions.clear();
    for (const d of this.disposables) d.dispose();
  }
}
