/** Observable facts about the shared HTTP layer (for the status bar, the log and the tests). */
export interface ClientEvents {
  /** A request finished (any status). Never carries headers or bodies. `route` is the path template (`/status/systems`). */
  onRequest?(e: { method: string; route: string; status?: number; durationMs: number; attempt: number }): void;
  /** The client is waiting before retrying (429 or transient failure). `route` includes the method (`GET /status/systems`). */
  onRetryWait?(e: { route: string; reason: 'rate-limit' | 'transient'; waitMs: number; attempt: number; maxAttempts: number }): void;
  /**
   * A request has had no answer (not even its headers) for `waitedMs` (the client's `slowAfterMs`,
   * default 4 s). Once per request. Slow is not down: `client.ping()` tells which it is.
   */
  onNoAnswerYet?(e: { route: string; waitedMs: number }): void;
  /** A token was obtained (no token value, only its lifetime). */
  onToken?(e: { expiresInSeconds?: number }): void;
}
