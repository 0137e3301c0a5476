/**
 * WorkerHash: the SHA-256 computed on a worker thread equals node:crypto's over the same bytes, in
 * any chunk sizes, although the caller reuses (here: zeroes) its buffers right after `update`;
 * back-pressure holds `update` while too much is pending; digest starts the hash afresh.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { WorkerHash } from '../../src/core/transfer/workerHash';

void describe('WorkerHash', () => {
  void it('hashes what it was given, copied at once, in batches, with bounded pending bytes', async () => {
    const w = new WorkerHash(1 << 20, 256 << 10);
    try {
      const h = createHash('sha256');
      for (let i = 0; i < 400; i++) {
        const b = randomBytes(1 + ((i * 7919) % 70_000));
        h.update(b);
        await w.update(b);
        b.fill(0);
      }
      assert.equal(await w.digest(), h.digest('hex'));
      assert.equal(await w.digest(), createHash('sha256').digest('hex'), 'a digest starts afresh');
    } finally {
      await w.close();
      await w.close();
    }
  });
});
