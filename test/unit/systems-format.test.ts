/** The system tooltip's line on how large files move (issue 40: sites without S3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transferLine } from '../../src/views/systems/systemsFormat';

void describe('transfer method line', () => {
  void it('says how large files move, and warns of a method the extension does not speak', () => {
    assert.equal(transferLine({ transferMethod: 's3', maxDirectTransferSize: 1 << 20 }), 'Files up to 1024 KiB move directly; larger ones are staged (s3).');
    assert.match(transferLine({ transferMethod: 'streamer', maxDirectTransferSize: 1 << 20 }) ?? '', /^\$\(warning\) .* with "streamer", which the extension does not speak yet\.$/);
    assert.equal(transferLine({ maxDirectTransferSize: 1 << 20 }), undefined);
  });
});
