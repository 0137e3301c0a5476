/**
 * Runs one large transfer under a cancellable progress notification and publishes it on
 * TransferEvents: percent, rate and ETA in the notification, cancel = abort signal.
 */
import * as vscode from 'vscode';
import type { Progress } from '../core/model';
import { isCancellation } from '../core/errors';
import type { TransferDirection, TransferEvents } from './transferEvents';

const MiB = 1024 * 1024;

function describe(p: Progress): string {
  if (p.bytesTotal && p.bytesDone !== undefined && p.phase !== 'waiting' && p.phase !== 'verifying') {
    const parts = p.partsTotal && p.partsTotal > 1 ? `, part ${p.partsDone ?? 0}/${p.partsTotal}` : '';
    const rate = p.rate ? `, ${(p.rate / MiB).toFixed(1)} MiB/s` : '';
    const eta = p.eta !== undefined && p.rate ? `, ${Math.ceil(p.eta)} s left` : '';
    return `${(p.bytesDone / MiB).toFixed(1)} of ${(p.bytesTotal / MiB).toFixed(1)} MiB${parts}${rate}${eta}`;
  }
  if (p.phase === 'waiting') return 'waiting for the transfer job';
  if (p.phase === 'verifying') return 'comparing SHA-256 with the server';
  if (p.phase === 'completing') return 'completing the upload';
  return p.message ?? p.phase;
}

/** What a transfer task receives: the signal to honour and where to report progress. */
export interface TransferTaskContext {
  signal: AbortSignal;
  onProgress: (p: Progress) => void;
}

export async function withTransferProgress<T>(
  events: TransferEvents | undefined,
  what: { direction: TransferDirection; remote: string; local?: string; title: string },
  task: (ctx: TransferTaskContext) => Promise<T>,
): Promise<T> {
  const handle = events?.start(what.direction, what.remote, what.local);
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: what.title, cancellable: true }, async (progress, token) => {
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort());
    let shownPercent = 0;
    const onProgress = (p: Progress): void => {
      handle?.report(p);
      const percent = p.bytesTotal && p.bytesDone !== undefined ? Math.min(100, (p.bytesDone / p.bytesTotal) * 100) : shownPercent;
      progress.report({ message: describe(p), increment: Math.max(0, percent - shownPercent) });
      shownPercent = Math.max(shownPercent, percent);
    };
    try {
      const result = await task({ signal: ac.signal, onProgress });
      handle?.end();
      return result;
    } catch (e) {
      handle?.end(e, ac.signal.aborted || isCancellation(e));
      throw e;
    } finally {
      sub.dispose();
    }
  });
}
