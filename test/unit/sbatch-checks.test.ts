/**
 * The live checks as pure rules (a parsed script and a snapshot in, problems and fixes out):
 * partition lists, the max time of the partition the job fits in, reservations over or not started,
 * accounts, and maintenance windows found by flag or by name.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseSbatchScript } from '../../src/core/sbatch/parser';
import type { Partition, Reservation } from '../../src/core/model';
import { liveChecks } from '../../src/core/sbatch/liveChecks';

const NOW = new Date('2030-01-10T12:00:00Z');
const h = (n: number) => new Date(NOW.getTime() + n * 3600_000);
const partitions: Partition[] = [
  { name: 'long', state: 'UP', maxTimeSeconds: 172800 },
  { name: 'debug', state: 'UP', isDefault: true, maxTimeSeconds: 3600 },
  { name: 'gpu', state: 'DRAIN', maxTimeSeconds: Infinity },
];
const reservations: Reservation[] = [
  { name: 'downtime', state: 'inactive', start: h(72), end: h(76), nodeList: 'n[1-4]', flags: ['MAINT'] },
  { name: 'course', state: 'active', start: h(-1), end: h(5), nodeList: 'n1' },
  { name: 'old', state: 'inactive', start: h(-10), end: h(-2), nodeList: 'n1' },
  { name: 'maint-net', state: 'inactive', start: h(30), end: h(31), nodeList: 'n2' },
];
const live = {
  partitions,
  reservations,
  userInfo: { user: { id: '1', name: 'alice' }, group: { id: '1', name: 'alice' }, groups: [], accounts: [{ name: 'proj2', isDefault: false }, { name: 'proj', isDefault: true }] },
  fetchedAt: 0,
};
const check = (...lines: string[]) => liveChecks(parseSbatchScript(['#!/bin/bash', ...lines, 'echo'].join('\n')), live, 'sys', NOW);
const codes = (...lines: string[]) => check(...lines).map((p) => p.code);

void describe('live checks', () => {
  void it('an unknown partition, with one fix per partition, the default first', () => {
    const [p] = check('#SBATCH -p debug,nope');
    assert.equal(p.code, 'unknown-partition');
    assert.deepEqual(p.span, { line: 1, start: 17, end: 21 });
    assert.equal(p.message, "Partition 'nope' does not exist on sys (it has debug, long, gpu).");
    assert.deepEqual(p.fix?.choices.map((c) => c.text), ['debug', 'long', 'gpu']);
  });

  void it('time above max: checked against the default partition when none is given, and a list needs only one that fits', () => {
    const [p] = check('#SBATCH --time=90');
    assert.equal(p.message, "Time limit 01:30:00 is above the maximum of partition 'debug' (01:00:00): sbatch refuses the job.");
    assert.deepEqual(p.fix?.choices, [{ title: "Set the time limit to 01:00:00 (the maximum of 'debug')", text: '01:00:00' }]);
    assert.deepEqual(codes('#SBATCH -p debug,long -t 1-0'), []);
    assert.deepEqual(codes('#SBATCH -p gpu -t 1-0'), ['partition-unavailable']);
  });

  void it('reservations: unknown, over, not started, and a running one is fine', () => {
    assert.deepEqual(codes('#SBATCH --reservation=course'), []);
    const [over] = check('#SBATCH --reservation=old');
    assert.deepEqual([over.code, over.severity, over.message], ['reservation-inactive', 'error', "Reservation 'old' is over: it ended 2030-01-10 10:00 UTC."]);
    const [later] = check('#SBATCH --reservation=downtime');
    assert.deepEqual([later.severity, later.message], ['warning', "Reservation 'downtime' has not started: the job waits until 2030-01-13 12:00 UTC."]);
    const [unknown] = check('#SBATCH --reservation=nah');
    assert.equal(unknown.message, "Reservation 'nah' does not exist on sys (it has downtime, course, maint-net).");
  });

  void it('accounts the user does not belong to, with the default account first', () => {
    const [p] = check('#SBATCH -A other');
    assert.equal(p.message, "You (alice) cannot charge account 'other' on sys: your accounts are proj, proj2.");
    assert.deepEqual(p.fix?.choices.map((c) => c.text), ['proj', 'proj2']);
    assert.deepEqual(codes('#SBATCH -A proj2'), []);
  });

  void it('maintenance: the first window (by flag or by name) starting before the job would end; the fix ends a minute before', () => {
    const [p] = check('#SBATCH -p long -t 2-0');
    assert.equal(p.code, 'maintenance-overlap');
    assert.equal(p.message, "Time limit 2-00:00:00 runs into maintenance 'maint-net' (2030-01-11 18:00 UTC to 2030-01-11 19:00 UTC): the job cannot start until the window is over unless it ends before it.");
    assert.deepEqual(p.fix?.choices.map((c) => c.text), ['1-05:59:00']);
    assert.deepEqual(codes('#SBATCH -p long -t 1-0'), []);
    // A job inside the maintenance reservation itself is meant to run there.
    assert.deepEqual(codes('#SBATCH -p long -t 2-0 --reservation=maint-net'), ['reservation-inactive']);
  });
});
