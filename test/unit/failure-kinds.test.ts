import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFinalFailure, isPassing } from '../../src/common/failureKinds';
import { PermissionDeniedError, ServerError, UnavailableError } from '../../src/core/errors';

void test('a denied permission, a quota or a full or read-only file system is final; a server away is passing', () => {
  assert.equal(isFinalFailure(new PermissionDeniedError('no')), true);
  assert.equal(isFinalFailure(new Error('mv: cannot move: Disk quota exceeded')), true);
  assert.equal(isFinalFailure(new Error('write error: No space left on device')), true);
  assert.equal(isFinalFailure(new Error('touch: Read-only file system')), true);
  assert.equal(isFinalFailure(new UnavailableError('connection reset')), false);
  assert.equal(isPassing(new UnavailableError('connection reset')), true);
  assert.equal(isPassing(new ServerError('bad gateway', { status: 502 })), true);
  assert.equal(isPassing(new PermissionDeniedError('no')), false);
});
