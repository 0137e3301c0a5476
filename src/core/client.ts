/**
 * Creating the ONE authenticated client a connection profile gets. Implemented with the HTTP
 * layer (`http/`), the token sources (`auth/`) and the per-version adapters (`v1/`, `v2/`).
 */
import type { FirecrestApi } from './api';
import type { ClientEvents } from './events';
import type { Logger } from './logger';
import type { ApiVersion, ConnectionProfile, OidcTokens } from './model';
import type { FileTransfers } from './transfer/fileTransfers';
import type { SignInRequiredError } from './errors';

/** A signed-in person's session as the client uses it: where its refresh token lives, and who to tell. */
export interface OidcSession {
  /**
   * The refresh token as stored now, read before each refresh: another window of the same
   * profile may have rotated it since.
   */
  refreshToken(): string | undefined | Promise<string | undefined>;
  /** Called with each rotated refresh token: it must replace the stored one. */
  onRefreshToken(token: string): void | Promise<void>;
  /** Called once when the identity provider refuses the refresh token (sign-in required). */
  onSignInRequired?(error: SignInRequiredError): void;
  /** The access token of the sign-in that just happened, if any (saves one refresh). */
  initial?: OidcTokens;
}

export interface ClientOptions {
  profile: ConnectionProfile;
  /** Client secret (client-credentials profiles), handed in by the caller from its secret store. */
  clientSecret?: string;
  /** A static bearer token (profiles with neither token URL nor token command). */
  staticToken?: string;
  /** The signed-in person's session (profiles with `auth: "oidc"`). */
  oidcSession?: OidcSession;
  logger?: Logger;
  /** Default per-request timeout in ms (default 30 000). */
  requestTimeoutMs?: number;
  /**
   * How long a listing of the user's jobs may take to answer, in ms (default 120 000, never less
   * than `requestTimeoutMs`). The server runs `squeue` and `sacct` over all their recent jobs;
   * with thousands of them on a busy controller that takes longer than other calls. A call's own
   * `timeoutMs` still wins.
   */
  listingTimeoutMs?: number;
  /** How many times a 429 is retried before RateLimitedError (default 5). */
  maxRateLimitRetries?: number;
  /** Longest single wait honoured for a 429, in ms (default 60 000). */
  maxRetryWaitMs?: number;
  userAgent?: string;
  /** After this long without an answer a request reports `onNoAnswerYet` (default 4000 ms). */
  slowAfterMs?: number;
  /**
   * API v1: how often the job listing asks accounting again for jobs that ended since its last
   * look (default 30 000 ms). Accounting lags a few seconds behind a job's end, and jobs submitted
   * elsewhere appear only this way.
   */
  jobWindowRefreshMs?: number;
}


export interface FirecrestClient extends FirecrestApi {
  readonly profile: ConnectionProfile;
  /** A bearer token valid for at least 30 s more, from the client's token source (refreshed when due). */
  accessToken(signal?: AbortSignal): Promise<string>;
  /** The resolved API generation (after `auto` probing). */
  readonly apiVersion: ApiVersion;
  /** Uploads/downloads routed by size (direct or staged through S3), verified by SHA-256. */
  readonly transfers: FileTransfers;
  /**
   * Whether the server answers at all within `timeoutMs` (default 4000): one request without a
   * token and without retries, for telling a slow request from a server that is away. Rejects only
   * with CancelledError.
   */
  ping(o?: { timeoutMs?: number; signal?: AbortSignal }): Promise<boolean>;
  /**
   * The server's time now in epoch ms, at most what it is: from the `Date` of its latest answer
   * (the client's own clock before any). What the cluster must not see as "in the future" stays at or below it.
   */
  serverNow(): number;
  /** Closes the connection pool. Safe to call twice. */
  dispose(): Promise<void>;
}

export type { ClientEvents };
