/**
 * Which job answers for a v2 move/copy whose submission answer was lost. v2 listings carry no
 * submit time, so an earlier transfer of the same paths, started long before the request, must not
 * be taken for the lost one; a job not started yet, or started after the request, may be it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobMetadata } from '../../src/core/model';
import { findLostTransferJob, type JobLookup } from '../../src/core/v2/lostSubmission';

const SOURCE = '/home/alice/a.txt';
const TARGET = '/home/alice/b.txt';
const SCRIPT = `#!/bin/bash\ncp -r -- '${SOURCE}' '${TARGET}'\n`;

function lookup(jobs: Partial<Job>[]): JobLookup & { metadataCalls: string[] } {
  const metadataCalls: string[] = [];
  return {
    metadataCalls,
    jobs: async () => jobs.map((j) => ({ name: 'CopyFiles', isFinal: true, ...j }) as Job),
    metadata: async (_system, id): Promise<JobMetadata> => {
      metadataCalls.push(id);
      return { id, script: SCRIPT, stdoutPath: `/home/alice/${id}.out`, stderrPath: `/home/alice/${id}.err` };
    },
  };
}

void describe('findLostTransferJob (v2, no submit times)', () => {
  const sentAt = Date.now();
  const lost = { system: 'c', kind: 'cp' as const, source: SOURCE, target: TARGET, sentAt };

  void it('does not take an earlier copy of the same paths, started an hour before the request, for the lost one', async () => {
    const api = lookup([{ id: '10', startTime: sentAt / 1000 - 3600 }]);
    assert.equal(await findLostTransferJob(api, lost, { lookForMs: 0 }), undefined);
    assert.deepEqual(api.metadataCalls, [], 'its script is not even fetched');
  });

  void it('finds the job started after the request, beside the old one', async () => {
    const api = lookup([{ id: '10', startTime: sentAt / 1000 - 3600 }, { id: '11', startTime: sentAt / 1000 + 1 }]);
    assert.equal((await findLostTransferJob(api, lost, { lookForMs: 0 }))?.jobId, '11');
  });

  void it('finds a job that has not started yet (pending: no time at all)', async () => {
    const api = lookup([{ id: '12', isFinal: false }]);
    const job = await findLostTransferJob(api, lost, { lookForMs: 0 });
    assert.equal(job?.jobId, '12');
    assert.equal(job?.errorLog, '/home/alice/12.err', 'the logs come from the metadata');
  });
});
