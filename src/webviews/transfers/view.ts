/**
 * From a TransferEvents record to what the webview draws. Pure: unit tests run it without VS Code.
 */
import type { TransferActions, TransferRecord } from '../../common/transferEvents';
import type { TransferView } from '../protocol';

/** At most this many part numbers go to the webview; beyond it the strip shows counts only. */
export const MAX_PART_CELLS = 512;

export function toTransferView(r: TransferRecord, can: TransferActions): TransferView {
  const p = r.progress;
  const bytesTotal = p?.bytesTotal ?? r.bytesTotal;
  const done = r.state === 'done';
  const bytesDone = done && bytesTotal !== undefined ? bytesTotal : p?.bytesDone;
  const seconds = r.endedAt !== undefined ? (r.endedAt - r.startedAt) / 1000 : undefined;
  // Finished: the average over the whole run (the smoothed rate describes only its last seconds).
  const rate = r.state === 'running' ? p?.rate : done && bytesTotal && seconds && seconds > 0 ? bytesTotal / seconds : undefined;
  const finished = p?.partsFinished;
  return {
    id: r.id,
    kind: r.kind,
    state: r.state,
    source: r.source,
    destination: r.destination,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    phase: p?.phase,
    message: p?.message,
    bytesDone,
    bytesTotal,
    partsDone: done && p?.partsTotal ? p.partsTotal : p?.partsDone,
    partsTotal: p?.partsTotal,
    partsFinished: finished && (p?.partsTotal ?? 0) <= MAX_PART_CELLS ? [...finished] : undefined,
    rate,
    eta: r.state === 'running' ? p?.eta : undefined,
    verified: r.verified,
    sha256: r.sha256,
    note: r.note,
    error: r.error,
    canCancel: can.cancel,
    canRetry: can.retry,
    canResume: can.resume,
    canOpen: done && !!r.destination && r.kind !== 'delete',
  };
}
