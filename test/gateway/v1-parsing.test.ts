/**
 * The v1 gateway's text handling, without a server: the stderr -> X-* header mapping in the real
 * utilities service's order, sacct time forms, Slurm time limits, squeue/sacct durations, and the
 * staging signer's refusal of tampered and expired URLs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Signer } from '../../gateway/src/staging/signer';
import { sacctDuration, squeueDuration } from '../../gateway/src/v1/compute-shapes';
import { commandError, TIMEOUT_TEXT } from '../../gateway/src/v1/errors';
import { parseSacctTime } from '../../gateway/src/v1/paging';
import { timeLimitMinutes } from '../../gateway/src/v1/storage-internal';

const header = (exit: number, stderr: string, grep = false): [number, string[]] => {
  const e = commandError('op', exit, stderr, grep);
  return [e.status, Object.keys(e.headers)];
};

void describe('v1 command error mapping (§2.2)', () => {
  void it('maps stderr to the header of the first matching row', () => {
    assert.deepEqual(header(124, ''), [400, ['X-Timeout']]);
    assert.equal(commandError('op', 124, '').body.error, TIMEOUT_TEXT);
    assert.deepEqual(header(2, "ls: cannot access '/x': No such file or directory"), [400, ['X-Invalid-Path']]);
    assert.deepEqual(header(1, "cp: cannot stat '/x': No such file or directory"), [400, ['X-Not-Found']]);
    assert.deepEqual(header(1, "head: cannot open '/x' for reading: Permission denied"), [400, ['X-Permission-Denied']]);
    assert.deepEqual(header(1, "mkdir: cannot create directory '/x': File exists"), [400, ['X-Exists']]);
    assert.deepEqual(header(1, "mv: cannot overwrite directory '/x' with non-directory"), [400, ['X-A-Directory']]);
    assert.deepEqual(header(1, "touch: cannot touch '/f/x': Not a directory"), [400, ['X-Not-A-Directory']]);
    assert.deepEqual(header(1, "chown: invalid group: 'u:nogroup'"), [400, ['X-Invalid-Group']]);
    assert.deepEqual(header(1, "chown: invalid user: 'nobody2'"), [400, ['X-Invalid-Owner']]);
    assert.deepEqual(header(1, "chmod: invalid mode: '9z9'"), [400, ['X-Invalid-Mode']]);
    assert.deepEqual(header(1, '', true), [404, ['X-Not-Found']]);
    assert.deepEqual(header(3, 'something else'), [400, ['X-Error']]);
  });

  void it('header values are one printable ASCII line', () => {
    const e = commandError('op', 3, 'first ‘line’\nsecond\tline é');
    assert.match(e.headers['X-Error'], /^[\x20-\x7e]+$/);
  });
});

void describe('v1 time forms', () => {
  void it('sacct start/end times, invalid ones dropped', () => {
    const now = new Date(2025, 4, 6, 12, 0, 0);
    const at = (...a: [number, number, number, number?, number?, number?]): number => Math.floor(new Date(a[0], a[1], a[2], a[3] ?? 0, a[4] ?? 0, a[5] ?? 0).getTime() / 1000);
    assert.equal(parseSacctTime('2024-03-02', now), at(2024, 2, 2));
    assert.equal(parseSacctTime('2024-03-02T10:20', now), at(2024, 2, 2, 10, 20));
    assert.equal(parseSacctTime('2024-03-02T10:20:30', now), at(2024, 2, 2, 10, 20, 30));
    assert.equal(parseSacctTime('08:15', now), at(2025, 4, 6, 8, 15));
    assert.equal(parseSacctTime('0302', now), at(2025, 2, 2));
    assert.equal(parseSacctTime('030224', now), at(2024, 2, 2));
    assert.equal(parseSacctTime('03/02/24', now), at(2024, 2, 2));
    assert.equal(parseSacctTime('03.02', now), at(2025, 2, 2));
    assert.equal(parseSacctTime('03/02-10:20:30', now), at(2025, 2, 2, 10, 20, 30));
    for (const bad of ['yesterday', '2024/03/02', '1h', '']) assert.equal(parseSacctTime(bad, now), undefined, bad);
  });

  void it('Slurm time limits M, M:S, H:M:S, D-H, D-H:M, D-H:M:S', () => {
    assert.equal(timeLimitMinutes('30'), 30);
    assert.equal(timeLimitMinutes('30:30'), 30.5);
    assert.equal(timeLimitMinutes('1:02:00'), 62);
    assert.equal(timeLimitMinutes('1-2'), 1560);
    assert.equal(timeLimitMinutes('1-0:30'), 1470);
    assert.equal(timeLimitMinutes('0-0:10:30'), 10.5);
    for (const bad of ['1h', '', '1:2:3:4', 'x-1']) assert.equal(timeLimitMinutes(bad), undefined, bad);
  });

  void it('squeue and sacct durations', () => {
    assert.equal(squeueDuration(62), '1:02');
    assert.equal(squeueDuration(3723), '1:02:03');
    assert.equal(squeueDuration(90061), '1-01:01:01');
    assert.equal(sacctDuration(62), '00:01:02');
    assert.equal(sacctDuration(90061), '1-01:01:01');
  });
});

void describe('staging signer', () => {
  void it('accepts its own URL, refuses a changed one and an expired one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'f7t-signer-'));
    try {
      const signer = Signer.load(dir);
      const check = (url: string, now?: number) => {
        const u = new URL(url);
        return signer.verifyUrl('GET', u.pathname, Object.fromEntries(u.searchParams), now);
      };
      const url = signer.presignUrl('GET', 'http://h', 'alice', 'task/a b.txt', 60);
      assert.equal(check(url), undefined);
      assert.equal(check(url.replace('alice', 'bobby'))?.code, 'SignatureDoesNotMatch');
      assert.equal(check(url, Date.now() + 61_000)?.code, 'AccessDenied');
      assert.equal(Signer.load(dir).verifyUrl('PUT', new URL(url).pathname, Object.fromEntries(new URL(url).searchParams))?.code, 'SignatureDoesNotMatch');
      const fields = signer.presignPost('alice', 'task/f.txt', 60, 10);
      assert.equal(signer.verifyPost('alice', fields).policy?.maxBytes, 10);
      assert.equal(signer.verifyPost('alice', { ...fields, key: 'task/other' }).refusal?.code, 'AccessDenied');
      assert.equal(signer.verifyPost('bob', fields).refusal?.code, 'AccessDenied');
      assert.equal(signer.verifyPost('alice', fields, Date.now() + 61_000).refusal?.code, 'AccessDenied');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
