/**
 * How long a query the user waits for may take to answer: a job listing (the Jobs view's, a
 * picker's) or an accounting query. Longer than a request's usual 30 s, because the server runs
 * `squeue` and `sacct` over the user's recent jobs, and with thousands of them on a loaded
 * controller that takes more than 30 s. The user can still stop it at once (Escape, a newer
 * query, closing the panel).
 */
export const WAITED_QUERY_TIMEOUT_MS = 120_000;
