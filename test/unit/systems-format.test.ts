/** The system tooltip's line on how large files move (issue 40: sites without S3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stateInWords } from '../../src/common/jobFormat';
import { transferLine } from '../../src/views/systems/systemsFormat';

void describe('transfer method line', () => {
  void it('says how large files move, and warns of a method the extension does not speak', () => {
    assert.equal(transferLine({ transferMethod: 's3', maxDirectTransferSize: 1 << 20 }), 'Files up to 1024 KiB move directly; larger ones are staged (s3).');
    assert.match(transferLine({ transferMethod: 'streamer', maxDirectTransferSize: 1 << 20 }) ?? '', /^\$\(warning\) .* with "streamer", which the extension does not speak yet\.$/);
    assert.equal(transferLine({ maxDirectTransferSize: 1 << 20 }), undefined);
  });
});

void describe('job state in words', () => {
  void it('names the user for a uid the server gives', () => {
    const job = (state: string) => ({ id: '1', name: 'n', state, stateClass: 'cancelled', isFinal: true }) as Parameters<typeof stateInWords>[0];
    assert.equal(stateInWords(job('CANCELLED by 1001'), { id: '1001', name: 'alice' }), 'CANCELLED by you (alice)');
    assert.equal(stateInWords(job('CANCELLED by 1002'), { id: '1001', name: 'alice' }), 'CANCELLED by user 1002');
    assert.equal(stateInWords(job('COMPLETED')), 'COMPLETED');
  });
});
