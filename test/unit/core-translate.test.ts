import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyState, isFinalState } from '../../src/core/jobState';
import { parseTimeLimit, toFileEntry, toHealth, toJob, toPartition, toSystem, failingServices } from '../../src/core/v2/translate';
import { pollSleeps, transferPollSleeps } from '../../src/core/v2/wait';
import { JobW, SystemW } from '../../src/core/v2/wire';

void describe('job states', () => {
  void it('final-state test of the official client', () => {
    for (const s of ['COMPLETED', 'FAILED', 'CANCELLED by 1001', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'PREEMPTED', 'COMPLETED,FAILED', 'F']) assert.ok(isFinalState(s), s);
    for (const s of ['PENDING', 'RUNNING', 'COMPLETING', 'CONFIGURING', 'SUSPENDED', 'RUNNING,COMPLETED', '', 'R', 'Q']) assert.ok(!isFinalState(s), s);
  });
  void it('classifies', () => {
    assert.equal(classifyState('PENDING'), 'pending');
    assert.equal(classifyState('RUNNING'), 'running');
    assert.equal(classifyState('COMPLETING'), 'running');
    assert.equal(classifyState('COMPLETED'), 'completed');
    assert.equal(classifyState('FAILED'), 'failed');
    assert.equal(classifyState('TIMEOUT'), 'failed');
    assert.equal(classifyState('CANCELLED by 1001'), 'cancelled');
    assert.equal(classifyState('F', 0), 'completed');
    assert.equal(classifyState('F', 2), 'failed');
    assert.equal(classifyState('Q'), 'pending');
    assert.equal(classifyState('WEIRD'), 'other');
  });
});

void describe('v2 translations', () => {
  void it('ls entries: size from the string, kind from the type letter, mtime from lastModified', () => {
    const f = toFileEntry({ name: 'run', type: 'd', linkTarget: null, user: 'alice', group: 'users', permissions: 'rwxr-xr-x', lastModified: '2025-01-10T09:00:00', size: '4096' });
    assert.deepEqual(f, { name: 'run', kind: 'directory', size: 4096, mtime: Date.UTC(2025, 0, 10, 9), permissions: 'rwxr-xr-x', owner: 'alice', group: 'users', linkTarget: undefined });
    assert.equal(toFileEntry({ ...f, type: '-', user: 'a', lastModified: '2025-01-10T09:00:00', size: '12' }).kind, 'file');
    const l = toFileEntry({ name: 'ln', type: 'l', linkTarget: '/etc/hosts', user: 'a', group: 'g', permissions: 'rwxrwxrwx', lastModified: 'garbage', size: '10' });
    assert.equal(l.kind, 'symlink');
    assert.equal(l.linkTarget, '/etc/hosts');
    assert.equal(l.mtime, 0);
    assert.equal(toFileEntry({ name: 'p', type: 'p', linkTarget: null, user: 'a', group: 'g', permissions: 'rw-r--r--', lastModified: '2025-01-10T09:00:00+02:00', size: '0' }).kind, 'other');
  });
  void it('jobs: state, class, final flag, times, limit in seconds', () => {
    const wire = JobW.parse({
      jobId: 4242, name: 'hello', status: { state: 'COMPLETED', stateReason: 'None', exitCode: 0, interruptSignal: 0 }, tasks: [],
      time: { elapsed: 10, start: 1714644001, end: 1714644012, suspended: 0, limit: 300 }, account: 'proj', allocationNodes: 1, cluster: 'alps',
      group: 'users', nodes: 'nid001', partition: 'normal', killRequestUser: null, user: 'alice', workingDirectory: '/home/alice/run', priority: 4294901,
    });
    const j = toJob(wire);
    assert.equal(j.id, '4242');
    assert.equal(j.stateClass, 'completed');
    assert.equal(j.isFinal, true);
    assert.equal(j.reason, undefined);
    assert.equal(j.timeLimitSeconds, 300);
    assert.equal(j.startTime, 1714644001);
    assert.equal(j.nodeCount, 1);
    const p = toJob(JobW.parse({ jobId: '7', name: 'x', status: { state: ['PENDING'], stateReason: 'Priority' }, time: { start: 0, limit: null } }));
    assert.equal(p.state, 'PENDING');
    assert.equal(p.stateClass, 'pending');
    assert.equal(p.isFinal, false);
    assert.equal(p.reason, 'Priority');
    assert.equal(p.startTime, undefined);
    assert.equal(p.expectedStartTime, undefined, 'no estimate');
    assert.equal(p.timeLimitSeconds, undefined);
    // A pending job's start is Slurm's estimate: expected, not started.
    const e = toJob(JobW.parse({ jobId: '8', name: 'x', status: { state: ['PENDING'], stateReason: 'Resources' }, time: { start: 1714650000, limit: 60 } }));
    assert.equal(e.startTime, undefined);
    assert.equal(e.expectedStartTime, 1714650000);
  });
  void it('system health and direct transfer limit', () => {
    const base = { name: 'alps', fileSystems: [{ path: '/home', dataType: 'users', defaultWorkDir: true }], dataOperation: { max_ops_file_size: 5242880 } };
    const h = (list: { serviceType: string; healthy: boolean; path?: string }[]) => toHealth(SystemW.parse({ ...base, servicesHealth: list }));
    assert.equal(h([{ serviceType: 'ssh', healthy: true }, { serviceType: 'filesystem', healthy: true, path: '/home' }]).status, 'ok');
    const d = h([{ serviceType: 'ssh', healthy: true }, { serviceType: 'filesystem', healthy: false, path: '/scratch' }]);
    assert.equal(d.status, 'degraded');
    assert.deepEqual(failingServices(d), ['filesystem /scratch']);
    assert.equal(h([{ serviceType: 'ssh', healthy: false }, { serviceType: 'filesystem', healthy: true }]).status, 'down');
    assert.equal(h([{ serviceType: 'scheduler', healthy: false }]).status, 'down');
    assert.equal(h([]).status, 'unknown');
    assert.equal(toSystem(SystemW.parse(base)).maxDirectTransferSize, 1048576);
    assert.equal(toSystem(SystemW.parse({ ...base, dataOperation: { max_ops_file_size: 1000 } })).maxDirectTransferSize, 1000);
    assert.equal(toSystem(SystemW.parse(base)).fileSystems[0].defaultWorkDir, true);
  });
  void it('partitions: state from `partition` (string or list), optional extras', () => {
    assert.deepEqual(toPartition({ name: 'normal', cpus: 256, totalNodes: 2, partition: 'UP' }), { name: 'normal', state: 'UP', cpus: 256, totalNodes: 2, isDefault: undefined, maxTimeSeconds: undefined });
    const p = toPartition({ name: 'debug', partition: ['up'], default: true, maxTime: '1-00:30:00' });
    assert.equal(p.state, 'UP');
    assert.equal(p.isDefault, true);
    assert.equal(p.maxTimeSeconds, 86400 + 1800);
  });
  void it('Slurm time limits', () => {
    assert.equal(parseTimeLimit('UNLIMITED'), Infinity);
    assert.equal(parseTimeLimit('30'), 1800);
    assert.equal(parseTimeLimit('01:30'), 90);
    assert.equal(parseTimeLimit('02:00:00'), 7200);
    assert.equal(parseTimeLimit('2-12'), 2 * 86400 + 12 * 3600);
    assert.equal(parseTimeLimit(600), 600);
    assert.equal(parseTimeLimit('nope'), undefined);
  });
  void it('wait-for-job sleep sequence', () => {
    const g = pollSleeps();
    assert.deepEqual(Array.from({ length: 11 }, () => g.next().value), [0.2, 0.5, 1, 2, 4, 8, 16, 32, 64, 64, 64]);
    // Transfer jobs (someone waits on them): denser at first, never more than 10 s apart.
    const tr = transferPollSleeps();
    assert.deepEqual(Array.from({ length: 18 }, () => tr.next().value), [0.2, 0.3, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 10, 10]);
  });
});
