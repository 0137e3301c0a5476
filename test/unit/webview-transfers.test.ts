/**
 * The Transfer Centre's pure parts: a record becomes what the webview draws (average rate once
 * done, no ETA after the end, part numbers only up to the cell limit, what can be done), and the
 * percent counts only accepted parts of a multipart upload and says 100 only at the end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TransferRecord } from '../../src/common/transferEvents';
import { MAX_PART_CELLS, toTransferView } from '../../src/webviews/transfers/view';
import { percent } from '../../webview-ui/transfers/format';

const can = { cancel: false, retry: true, resume: false };
const base: TransferRecord = { id: 1, kind: 'upload', remote: 'firecrest://c/f', local: '/tmp/f', source: '/tmp/f', destination: 'firecrest://c/f', startedAt: 10_000, state: 'running' };

void describe('Transfer Centre views', () => {
  void it('shows the smoothed rate and ETA while running, the average once done', () => {
    const running = toTransferView({ ...base, progress: { phase: 'uploading', bytesDone: 10, bytesTotal: 40, rate: 5, eta: 6, partsDone: 1, partsTotal: 4, partsFinished: [2] } }, { ...can, cancel: true });
    assert.equal(running.rate, 5);
    assert.equal(running.eta, 6);
    assert.deepEqual(running.partsFinished, [2]);
    assert.equal(running.canCancel, true);
    assert.equal(running.canOpen, false);
    const done = toTransferView({ ...base, state: 'done', endedAt: 14_000, verified: true, sha256: 'ab', progress: { phase: 'verified', bytesDone: 40, bytesTotal: 40, partsDone: 3, partsTotal: 4 } }, can);
    assert.equal(done.rate, 10, '40 bytes in 4 s');
    assert.equal(done.eta, undefined);
    assert.equal(done.partsDone, 4);
    assert.equal(done.bytesDone, 40);
    assert.equal(done.canOpen, true);
    assert.equal(done.verified, true);
  });

  void it('sends part numbers only up to the cell limit', () => {
    const many = toTransferView({ ...base, progress: { phase: 'uploading', partsTotal: MAX_PART_CELLS + 1, partsDone: 1, partsFinished: [1] } }, can);
    assert.equal(many.partsFinished, undefined);
  });

  void it('counts accepted parts of a multipart upload and says 100 only at the end', () => {
    const v = toTransferView({ ...base, progress: { phase: 'uploading', bytesDone: 40, bytesTotal: 40, partsDone: 1, partsTotal: 4 } }, can);
    assert.equal(percent(v), 25, 'all bytes written, one part of four accepted');
    assert.equal(percent({ ...v, kind: 'download', partsTotal: undefined, partsDone: undefined }), 99, 'running: never 100');
    assert.equal(percent({ ...v, state: 'done' }), 100);
    assert.equal(percent({ ...v, bytesTotal: undefined }), undefined, 'no size, no percent');
  });
});
