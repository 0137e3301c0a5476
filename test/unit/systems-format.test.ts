/** The system tooltip's line on how large files move (issue 40: sites without S3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { stateInWords } from '../../src/common/jobFormat';
import { FILES_EXCLUDE_GLOBS, isOwnFile } from '../../src/common/ownFiles';
import { transferLine } from '../../src/views/systems/systemsFormat';

void describe('transfer method line', () => {
  void it('says how large files move, and warns of a method the extension does not speak', () => {
    assert.equal(transferLine({ transferMethod: 's3', maxDirectTransferSize: 1 << 20 }), 'Files up to 1024 KiB move directly; larger ones are staged (s3).');
    assert.equal(transferLine({ transferMethod: 'streamer', maxDirectTransferSize: 1 << 20 }), 'Files up to 1024 KiB move directly; larger ones stream from a transfer job on the cluster (streamer).');
    assert.match(transferLine({ transferMethod: 'wormhole', maxDirectTransferSize: 1 << 20 }) ?? '', /^\$\(warning\) .* with "wormhole", which the extension does not speak yet\.$/);
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

void describe("the extension's own files", () => {
  void it('are told apart, and package.json hides the same names from the Explorer', () => {
    for (const p of ['/home/a/.f7t_file_handling_job_123.log', '/home/a/x/.f7t-alias-0123abcd', '.f7t-search-9.out']) assert.ok(isOwnFile(p), p);
    for (const p of ['/home/a/f7t-notes.txt', '/home/a/.f7t/x.txt', '/home/a/my.f7t-x']) assert.ok(!isOwnFile(p), p);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configurationDefaults: Record<string, Record<string, boolean>> } };
    assert.deepEqual(Object.keys(pkg.contributes.configurationDefaults['files.exclude']).sort(), [...FILES_EXCLUDE_GLOBS].sort());
  });
});
