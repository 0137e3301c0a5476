/**
 * Typed errors. Every failure the client reports is one of these, carrying the server's message
 * and the HTTP status when there was one. UI code maps them to its own vocabulary in one place.
 */

export interface FirecrestErrorDetails {
  /** HTTP status of the answer that caused it, when there was one. */
  status?: number;
  /** The route, e.g. `GET /filesystem/{system}/ops/ls`, never a full URL with a query. */
  route?: string;
  /** Chained server texts (v2 `causedBy`, v1 `X-*` headers). */
  causedBy?: string[];
  /** The username the server saw, when it said. */
  user?: string;
  /** The `X-Request-ID` the request carried: what a site's support finds it by in the server's logs. */
  requestId?: string;
  /** The server asked (`https://host:port`), on a failure to reach it: which site is down. */
  origin?: string;
  cause?: unknown;
}

export class FirecrestError extends Error {
  readonly status?: number;
  readonly route?: string;
  readonly causedBy?: string[];
  readonly user?: string;
  readonly requestId?: string;
  readonly origin?: string;

  constructor(message: string, details: FirecrestErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.route = details.route;
    this.causedBy = details.causedBy;
    this.user = details.user;
    this.requestId = details.requestId;
    this.origin = details.origin;
  }
}

/** The path, job, system or route does not exist (404, v1 X-Invalid-Path and friends). */
export class NotFoundError extends FirecrestError {}

/** The user may not do this (403, "Permission denied", v1 X-Permission-Denied). */
export class PermissionDeniedError extends FirecrestError {}

/** The token was refused, or none could be obtained (401, token endpoint failure). */
export class UnauthorizedError extends FirecrestError {}

/**
 * A person's sign-in at the identity provider is over (refresh token refused: session ended,
 * revoked, or expired): nothing works until they sign in again in the browser.
 */
export class SignInRequiredError extends UnauthorizedError {}

/** What a sign-in checks, and which check failed. */
export type SignInCheck = 'state' | 'nonce' | 'signature' | 'issuer' | 'pkce' | 'response';

/** The identity provider's answer failed a check (state, nonce, ID token signature, issuer): nothing of it is used. */
export class SignInCheckError extends UnauthorizedError {
  constructor(message: string, readonly check: SignInCheck, details: FirecrestErrorDetails = {}) {
    super(message, details);
  }
}

/** 429 and the retry budget is spent. */
export class RateLimitedError extends FirecrestError {
  /** Seconds the server asked to wait, when it said. */
  readonly retryAfterSeconds?: number;
  constructor(message: string, details: FirecrestErrorDetails & { retryAfterSeconds?: number } = {}) {
    super(message, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** A per-request timeout expired, or the server reported that its command timed out (408). */
export class TimeoutError extends FirecrestError {}

/** The payload or output is over a server limit (413), or a file is too large for the route chosen. */
export class TooLargeError extends FirecrestError {}

/**
 * The server's answer was larger than any answer of that route can reasonably be (a hostile or
 * broken server): it was not read further. `limit` is the cap in bytes.
 */
export class ResponseTooLargeError extends FirecrestError {
  readonly limit: number;
  constructor(message: string, details: FirecrestErrorDetails & { limit: number }) {
    super(message, details);
    this.limit = details.limit;
  }
}

/** Server unreachable, connection dropped, TLS failure, 424/503, or a body that is not the API's. */
export class UnavailableError extends FirecrestError {}

/** The request was refused as malformed (400, validation errors, v1 X-Invalid-* headers). */
export class InvalidInputError extends FirecrestError {
  /** v2 validation details: which field, where, and why. */
  readonly fields?: { location: string; name: string; message: string }[];
  constructor(message: string, details: FirecrestErrorDetails & { fields?: { location: string; name: string; message: string }[] } = {}) {
    super(message, details);
    this.fields = details.fields;
  }
}

/** Any other server-side failure (5xx, unexpected status, a transfer job that did not succeed). */
export class ServerError extends FirecrestError {}

/** The answer did not match the route's schema. Names the route; never a crash later on. */
/**
 * The site is in planned maintenance (a 503 that says so): not an outage. The message is the
 * site's own; `retryAfterSeconds` when the server said how long.
 */
export class MaintenanceError extends UnavailableError {
  readonly retryAfterSeconds?: number;
  constructor(message: string, details: FirecrestErrorDetails & { retryAfterSeconds?: number } = {}) {
    super(message, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export class MalformedResponseError extends UnavailableError {}

/** An S3 refusal or a failed exchange with the staging area; `retryable` says whether sending again can help. */
export class S3Error extends FirecrestError {
  constructor(message: string, readonly retryable: boolean, readonly s3Code?: string, details: { status?: number; cause?: unknown } = {}) {
    super(message, details);
  }
}

/** The feature does not exist on this API version or server version. */
export class NotSupportedError extends FirecrestError {}

/** The caller aborted through its AbortSignal. */
export class CancelledError extends FirecrestError {
  constructor(message = 'Cancelled', details: FirecrestErrorDetails = {}) {
    super(message, details);
  }
}

export function isCancellation(e: unknown): boolean {
  return e instanceof CancelledError || (e instanceof Error && e.name === 'AbortError');
}

/**
 * What arrived is not what was sent: the local SHA-256 differs from the server's. Names both hashes;
 * the transfer left the destination as described in the message.
 */
export class ChecksumMismatchError extends FirecrestError {
  constructor(message: string, readonly localSha256: string, readonly remoteSha256: string, details: FirecrestErrorDetails = {}) {
    super(message, details);
  }
}

/** The text of a failure, whatever was thrown (an Error's message, else the value as text). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
