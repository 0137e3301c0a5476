/**
 * A local file's SHA-256 as an upload checks it (src/core/transfer/uploadSource.ts): the same as a
 * hash of its bytes at every size around the reused buffers' edges, and a cancel ends it in words.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CancelledError } from '../../src/core/errors';
import { fileSource } from '../../src/core/transfer/uploadSource';

const dir = mkdtempSync(join(tmpdir(), 'f7t-upload-source-'));
const MiB = 1 << 20;

void describe('upload source: a file\'s SHA-256', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('is the hash of the bytes, across the edges of its 1 MiB buffers', async () => {
    for (const size of [0, 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 17]) {
      const bytes = randomBytes(size);
      const path = join(dir, `f${size}`);
      writeFileSync(path, bytes);
      assert.equal(await (await fileSource(path)).sha256(), createHash('sha256').update(bytes).digest('hex'), `${size} bytes`);
    }
  });

  void it('stops with CancelledError when the upload is cancelled', async () => {
    const path = join(dir, 'big');
    writeFileSync(path, randomBytes(4 * MiB));
    const ac = new AbortController();
    ac.abort();
    await assert.rejects((await fileSource(path)).sha256(ac.signal), CancelledError);
  });
});
