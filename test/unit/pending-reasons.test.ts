import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobMarkdownTable, jobTooltip } from '../../src/common/jobFormat';
import { explainPendingReason } from '../../src/core/pendingReasons';
import type { Job } from '../../src/core/model';

void describe('pending reasons in words', () => {
  void it('explains the reasons users meet most, with what to do where there is something', () => {
    for (const r of ['Priority', 'Resources', 'QOSMaxJobsPerUserLimit', 'AssocGrpCPUMinutesLimit', 'ReqNodeNotAvail', 'Dependency', 'BeginTime', 'JobHeldUser', 'JobArrayTaskLimit']) {
      assert.ok(explainPendingReason(r)?.why, r);
    }
    assert.match(explainPendingReason('JobHeldUser')?.advice ?? '', /scontrol release/);
    assert.match(explainPendingReason('DependencyNeverSatisfied')?.why ?? '', /never start/);
  });

  void it('reads a reason with details by its head, and the limit families alike', () => {
    assert.deepEqual(explainPendingReason('ReqNodeNotAvail, Reserved for maintenance'), explainPendingReason('ReqNodeNotAvail'));
    assert.deepEqual(explainPendingReason('ReqNodeNotAvail, UnavailableNodes:nid001'), explainPendingReason('ReqNodeNotAvail'));
    assert.match(explainPendingReason('QOSGrpGRES')?.why ?? '', /limit/);
    assert.match(explainPendingReason('AssocGrpNodeLimit')?.why ?? '', /limit/);
  });

  void it('says nothing for None, unknown reasons and nothing at all', () => {
    assert.equal(explainPendingReason('None'), undefined);
    assert.equal(explainPendingReason(undefined), undefined);
    assert.equal(explainPendingReason('SomethingNew'), undefined);
  });

  void it('puts the explanation, with the job id in its advice, in the tooltip and the details of a pending job only', () => {
    const job = { id: '42', name: 'held', state: 'PENDING', stateClass: 'pending', isFinal: false, reason: 'JobHeldUser' } as Job;
    const tip = jobTooltip(job, 'cluster', 0);
    assert.match(tip, /\*Waiting:\* You \(or a script of yours\) put it on hold\./);
    assert.match(tip, /scontrol release 42/);
    assert.match(jobMarkdownTable(job, 'cluster'), /JobHeldUser: You \(or a script of yours\) put it on hold\./);
    const done = { ...job, state: 'CANCELLED', stateClass: 'cancelled', isFinal: true } as Job;
    assert.doesNotMatch(jobTooltip(done, 'cluster', 0), /Waiting/);
  });
});
