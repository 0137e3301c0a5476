/**
 * Runs one transfer under a cancellable progress notification and publishes it on TransferEvents:
 * percent, rate and ETA in the notification; cancel (from the notification or the Transfer Centre)
 * = abort signal.
 */
import * as vscode from 'vscode';
import type { Progress } from '../core/model';
import { CancelledError, isCancellation } from '../core/errors';
import type { TransferDirection, TransferEvents, TransferKind, TransferStart } from './transferEvents';

const MiB = 1024 * 1024;

function describe(p: Progress): string {
  if (p.bytesTotal && p.bytesDone !== undefined && p.phase !== 'waiting' && p.phase !== 'verifying') {
    const parts = p.partsTotal && p.partsTotal > 1 ? `, ${vscode.l10n.t('part {0}/{1}', p.partsDone ?? 0, p.partsTotal)}` : '';
    const rate = p.rate ? `, ${(p.rate / MiB).toFixed(1)} MiB/s` : '';
    const eta = p.eta !== undefined && p.rate ? `, ${vscode.l10n.t('{0} s left', Math.ceil(p.eta))}` : '';
    return `${vscode.l10n.t('{0} of {1} MiB', (p.bytesDone / MiB).toFixed(1), (p.bytesTotal / MiB).toFixed(1))}${parts}${rate}${eta}`;
  }
  if (p.phase === 'waiting') return p.message ?? vscode.l10n.t('waiting for the transfer job');
  if (p.phase === 'verifying') return vscode.l10n.t('comparing SHA-256 with the server');
  if (p.phase === 'completing') return vscode.l10n.t('completing the upload');
  return p.message ?? p.phase;
}

/** What a transfer task receives: the signal to honour and where to report progress. */
export interface TransferTaskContext {
  signal: AbortSignal;
  onProgress: (p: Progress) => void;
}

/** What a transfer is, for the notification and the Transfer Centre. */
export interface TransferDescription extends Omit<TransferStart, 'kind' | 'cancel'> {
  /** `direction` is the older name of `kind` for byte transfers. */
  kind?: TransferKind;
  direction?: TransferDirection;
  title: string;
}

export async function withTransferProgress<T>(
  events: TransferEvents | undefined,
  what: TransferDescription,
  task: (ctx: TransferTaskContext) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  const { title, direction, kind, ...rest } = what;
  const handle = events?.start({ ...rest, kind: kind ?? direction ?? 'download', cancel: () => ac.abort() });
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const sub = token.onCancellationRequested(() => ac.abort());
    let shownPercent = 0;
    const onProgress = (p: Progress): void => {
      handle?.report(p);
      const percent = p.bytesTotal && p.bytesDone !== undefined ? Math.min(100, (p.bytesDone / p.bytesTotal) * 100) : shownPercent;
      progress.report({ message: describe(p), increment: Math.max(0, percent - shownPercent) });
      shownPercent = Math.max(shownPercent, percent);
    };
    try {
      if (ac.signal.aborted) throw new CancelledError(vscode.l10n.t('Cancelled'));
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
