/** Pure parts of the v1 adapter: task failures → typed errors, squeue/sacct shapes, version gates, directives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError, PermissionDeniedError, ServerError, TimeoutError } from '../../src/core/errors';
import { outputDirectives, withWorkingDirectory } from '../../src/core/v1/compute';
import { checkDependency, dependencyTargets, withDirectives } from '../../src/core/jobScript';
import { parseV1Version, versionAtLeast } from '../../src/core/v1/status';
import { taskError, taskSleeps } from '../../src/core/v1/tasks';
import { acctJob, queueJob, reservation, slurmDuration } from '../../src/core/v1/translate';

const task = (status: number, data: unknown) => ({ status, data });

void describe('v1 task failures', () => {
  void it('map their data text to typed errors, 115/118 as transfer failures', () => {
    assert.ok(taskError(task(400, 'User does not have permission to cancel job'), 'a') instanceof PermissionDeniedError);
    assert.ok(taskError(task(400, 'scancel: error: Invalid job id specified'), 'a') instanceof NotFoundError);
    assert.ok(taskError(task(400, 'Command has finished with timeout signal'), 'a') instanceof TimeoutError);
    const up = taskError(task(115, { msg: 'object vanished', status: '115' }), 'a');
    assert.ok(up instanceof ServerError && /staged upload/.test(up.message) && up.message.includes('object vanished'));
    const down = taskError(task(118, { error: 'Upload to Staging area has failed. Object: x.', source: '/x' }), 'a');
    assert.ok(down instanceof ServerError && /stage the file for download/.test(down.message));
  });

  void it('poll with sleeps from 0.2 s doubling to 2 s', () => {
    const g = taskSleeps();
    assert.deepEqual(Array.from({ length: 6 }, () => g.next().value), [200, 400, 800, 1600, 2000, 2000]);
  });
});

void describe('v1 job shapes', () => {
  void it('squeue: start_time is the elapsed time and time the start timestamp (swapped on the server)', () => {
    const j = queueJob({ jobid: '42', name: 'n', state: 'RUNNING', start_time: '1-02:03:04', time: '2024-05-02T10:29:00', nodes: '2', nodelist: 'nid[1-2]', job_file_out: '/o', job_file_err: 'stderr-file-not-found' });
    assert.equal(j.elapsedSeconds, 93784);
    assert.equal(j.startTime, Date.UTC(2024, 4, 2, 10, 29) / 1000);
    assert.equal(j.stateClass, 'running');
    assert.equal(j.nodeCount, 2);
    assert.equal(j.stdoutPath, '/o');
    assert.equal(j.stderrPath, undefined);
    assert.equal(queueJob({ jobid: '1', state: 'PENDING', start_time: '0:00', time: 'N/A' }).startTime, undefined);
    const waiting = queueJob({ jobid: '43', name: 'n', state: 'PENDING', start_time: '0:00', time: '2024-05-02T12:00:00', nodes: '1', nodelist: '', job_file_out: '/o', job_file_err: '/e' });
    assert.equal(waiting.startTime, undefined, 'a pending job has not started');
    assert.equal(waiting.expectedStartTime, Date.parse('2024-05-02T12:00:00Z') / 1000);
  });

  void it("squeue: a pending job's nodelist is its reason in parentheses (%R), not a node", () => {
    const dep = queueJob({ jobid: '5', state: 'PENDING', start_time: '0:00', time: 'N/A', nodes: '1', nodelist: '(Dependency)' });
    assert.deepEqual([dep.reason, dep.nodes], ['Dependency', undefined]);
    const none = queueJob({ jobid: '6', state: 'PENDING', start_time: '0:00', time: 'N/A', nodes: '1', nodelist: '(None)' });
    assert.deepEqual([none.reason, none.nodes], [undefined, undefined]);
    const running = queueJob({ jobid: '7', state: 'RUNNING', start_time: '0:10', time: 'N/A', nodes: '1', nodelist: 'nid001' });
    assert.deepEqual([running.reason, running.nodes], [undefined, 'nid001']);
  });

  void it('sacct: exit code and signal, end time, final state', () => {
    const j = acctJob({ jobid: '7', state: 'FAILED', exit_code: '2:9', start_time: '2024-05-02T10:00:00', termination_time: '2024-05-02T10:01:00', elapsed_time: '00:01:00' });
    assert.deepEqual([j.exitCode, j.signal, j.isFinal, j.stateClass, j.elapsedSeconds], [2, 9, true, 'failed', 60]);
    assert.equal(slurmDuration('05:07'), 307);
  });

  void it('reservations of the reservations service keep users, accounts and flags', () => {
    const r = reservation({ reservationname: 'maint', state: 'INACTIVE', starttime: '2030-01-01T00:00:00', endtime: '2030-01-01T01:00:00', nodes: 'n1', flags: 'MAINT,SPEC_NODES', users: 'alice', accounts: '(null)' });
    assert.deepEqual([r.name, r.state, r.flags, r.users, r.accounts], ['maint', 'inactive', ['MAINT', 'SPEC_NODES'], ['alice'], []]);
  });
});

void describe('v1 versions and submit directives', () => {
  void it('reads v-prefixed versions; anything else is the 1.15.0 default', () => {
    assert.equal(parseV1Version('v1.16.6'), '1.16.6');
    assert.equal(parseV1Version('not defined'), undefined, 'no version: the 1.16 routes are probed instead of assuming 1.15');
    assert.equal(parseV1Version(undefined), undefined);
    assert.ok(versionAtLeast('1.16.0', '1.16.0') && versionAtLeast('1.16.6', '1.16.0') && !versionAtLeast('1.15.0', '1.16.0') && versionAtLeast('2.0.0', '1.16.0'));
  });

  void it('puts #SBATCH lines right after the shebang', () => {
    assert.equal(withDirectives('#!/bin/bash\necho hi\n', ['#SBATCH --partition=p']), '#!/bin/bash\n#SBATCH --partition=p\necho hi\n');
    assert.equal(withDirectives('echo hi\n', ['#SBATCH --job-name=x']), '#!/bin/bash\n#SBATCH --job-name=x\necho hi\n');
    assert.equal(withDirectives('#!/bin/sh\necho\n', []), '#!/bin/sh\necho\n');
    // A dependency becomes a script line: only Slurm's forms pass.
    for (const ok of ['afterok:12', 'afterany:12:13', 'after:12+5', 'singleton', 'afterok:12,afterany:13', 'afterok:12?afternotok:13', 'afterok:12_3']) assert.equal(checkDependency(ok), ok);
    for (const bad of ['afterok:12\nrm -rf ~', 'afterok:', 'later:12', 'afterok:12;id', '']) assert.throws(() => checkDependency(bad), /Not a Slurm dependency/);
    assert.deepEqual(dependencyTargets('afterok:12:13,afterany:14+5'), [{ type: 'afterok', jobId: '12' }, { type: 'afterok', jobId: '13' }, { type: 'afterany', jobId: '14' }]);
  });

  void it('cds to the working directory after the whole directive block, and puts the output there', () => {
    assert.equal(withWorkingDirectory('#!/bin/bash\n#SBATCH -t 1\n\n# note\necho hi\n', "/home/a/it's"), "#!/bin/bash\n#SBATCH -t 1\n\n# note\n#SBATCH --output=/home/a/it's/slurm-%j.out\ncd -- '/home/a/it'\\''s' || exit 1\necho hi\n");
  });

  void it("writes the job's files where the user works, not in v1's upload folder (--chdir)", () => {
    const d = (script: string, dir = '/w') => outputDirectives(script.split('\n'), dir);
    assert.deepEqual(d('#!/bin/bash\n#SBATCH -t 1'), ['#SBATCH --output=/w/slurm-%j.out']);
    assert.deepEqual(d('#SBATCH --array=1-3'), ['#SBATCH --output=/w/slurm-%A_%a.out']);
    assert.deepEqual(d('#SBATCH -a 1-3 -o logs/%A_%a.txt'), ['#SBATCH --output=/w/logs/%A_%a.txt']);
    assert.deepEqual(d('#SBATCH --output=/abs/o.txt --error=e.txt'), ['#SBATCH --error=/w/e.txt']);
    assert.deepEqual(d('#SBATCH -oout.txt\n#SBATCH --output /abs/last.txt'), [], 'the last one wins, and it is absolute');
    assert.deepEqual(d('#SBATCH --input=in.txt', '/home/a/My Project/'), ['#SBATCH --output="/home/a/My Project/slurm-%j.out"', '#SBATCH --input="/home/a/My Project/in.txt"']);
    assert.deepEqual(d('#SBATCH -t 1', '/scratch/100%'), ['#SBATCH --output=/scratch/100%%/slurm-%j.out']);
  });
});
