/**
 * A status bar entry while transfers run: how many, and the overall percent of those that know
 * their size. Click opens the Transfer Centre. Hidden when nothing runs.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { TransferEvents } from '../../common/transferEvents';

export class TransfersStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('firecrest.transfers', vscode.StatusBarAlignment.Left, 49));

  constructor(private readonly events: TransferEvents, command: string) {
    super();
    this.item.name = vscode.l10n.t('FirecREST Transfers');
    this.item.command = command;
    this._register(events.onDidChange(() => this.update()));
    this.update();
  }

  get text(): string {
    return this.item.text;
  }

  get visible(): boolean {
    return this.events.running().length > 0;
  }

  private update(): void {
    const running = this.events.running();
    if (running.length === 0) {
      this.item.hide();
      return;
    }
    let done = 0;
    let total = 0;
    for (const r of running) {
      const p = r.progress;
      const t = p?.bytesTotal ?? r.bytesTotal;
      if (!t) continue;
      total += t;
      // Bytes count when written to the socket: a multipart upload counts only its accepted parts.
      const parts = r.kind === 'upload' && p?.partsTotal && p.partsTotal > 1 && p.partsDone !== undefined ? (p.partsDone / p.partsTotal) * t : t;
      done += Math.min(t, p?.bytesDone ?? 0, parts);
    }
    const percent = total > 0 ? ` ${Math.min(99, Math.floor((done / total) * 100))}%` : '';
    const n = running.length;
    this.item.text = `$(sync~spin) ${n === 1 ? vscode.l10n.t('1 transfer') : vscode.l10n.t('{0} transfers', n)}${percent}`;
    this.item.tooltip = new vscode.MarkdownString(
      [vscode.l10n.t('FirecREST transfers running (click for the Transfer Centre):'), ...running.slice(0, 8).map((r) => `- ${r.kind}: \`${(r.destination ?? r.source).replace(/`/g, "'")}\``)].join('\n'),
    );
    this.item.show();
  }
}
