import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeJob } from '../../src/common/jobFormat';
import type { Job } from '../../src/core/model';

const now = Date.UTC(2026, 10, 25, 12, 0, 0) / 1000;
const running: Job = {
  id: '42', name: 'train', state: 'RUNNING', stateClass: 'running', isFinal: false, startTime: now - 600, elapsedSeconds: 600,
  timeLimitSeconds: 3600, partition: 'gpu', account: 'proj', user: 'alice', nodes: 'nid[001-004]', nodeCount: 4, submitTime: now - 900,
};

void describe('job descriptions (firecrest.jobs.description)', () => {
  void it('shows the status by default, as before', () => {
    assert.equal(describeJob(running, now), '10:00 / 1:00:00');
    assert.equal(describeJob({ ...running, state: 'PENDING', stateClass: 'pending', reason: 'Priority', startTime: undefined }, now), 'Priority');
    assert.equal(describeJob({ ...running, state: 'FAILED', stateClass: 'failed', isFinal: true, exitCode: 2, endTime: now }, now), 'FAILED · exit 2');
  });

  void it('flags a running job near its limit', () => {
    assert.equal(describeJob({ ...running, startTime: now - 3300, elapsedSeconds: 3300 }, now), '55:00 / 1:00:00 ⚠ 91% of limit');
    assert.equal(describeJob({ ...running, startTime: now - 3000, elapsedSeconds: 3000 }, now), '50:00 / 1:00:00');
  });

  void it('adds the fields asked for, in their order, leaving out what the job lacks', () => {
    assert.equal(describeJob(running, now, ['partition', 'nodes', 'status', 'account', 'user']), 'gpu · 4 nodes nid[001-004] · 10:00 / 1:00:00 · proj · alice');
    assert.equal(describeJob({ ...running, nodes: 'nid007', nodeCount: 1 }, now, ['nodes']), 'nid007');
    assert.match(describeJob(running, now, ['submitted', 'started', 'ended']), /^submitted \d\d:\d\d · started \d\d:\d\d$/);
    assert.equal(describeJob({ ...running, partition: undefined, account: undefined }, now, ['partition', 'account']), '');
  });

  void it('a pending job is expected to start (Slurm\'s estimate), or has no estimate yet; it never "started"', () => {
    const pending: Job = { ...running, state: 'PENDING', stateClass: 'pending', reason: 'Priority', startTime: undefined, elapsedSeconds: 0 };
    assert.match(describeJob({ ...pending, expectedStartTime: now + 3600 }, now, ['status', 'started']), /^Priority · expected to start \d\d:\d\d$/);
    assert.equal(describeJob(pending, now, ['status', 'started']), 'Priority · no start estimate yet');
  });
});
