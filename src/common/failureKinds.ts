/** What a failure means for the views: gone by itself on a later try, or needing the user. */
import { messageOf, PermissionDeniedError, ServerError, TimeoutError, UnauthorizedError, UnavailableError } from '../core/errors';

/** A failure that may be gone on the next try (the server away, a time-out; not a refusal). */
export function isPassing(e: unknown): boolean {
  return e instanceof UnavailableError || e instanceof TimeoutError || (e instanceof ServerError && [502, 503, 504].includes(e.status ?? 0));
}

/** True when the failure asks for a sign-in rather than a retry. */
export function needsSignIn(e: unknown): boolean {
  return e instanceof UnauthorizedError;
}

/** A refusal of the cluster that a retry cannot change: permissions, quota, a full or read-only file system. */
export function isFinalFailure(e: unknown): boolean {
  if (e instanceof PermissionDeniedError) return true;
  const text = messageOf(e);
  return /Permission denied|quota|No space left on device|Read-only file system/i.test(text);
}
