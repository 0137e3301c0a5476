/**
 * The messages between the extension host and the webviews, one union per direction and panel.
 * `webview-ui/` imports this file with `import type` only, so nothing here may be a runtime value
 * the browser bundle would need. The host validates every inbound message against the zod schemas
 * in `accounting/messages.ts` and `transfers/messages.ts`, checked against these types at compile time.
 *
 * Conventions: the webview sends `ready` once its script runs; the host answers with its initial
 * state. Requests carry a `requestId` chosen by the webview; every response carries the id it
 * answers, so a late answer to an older request can be recognised and dropped.
 */

/** Preset time ranges of the accounting form; `custom` uses `from`/`to` (YYYY-MM-DD, local days). */
export type AccountingRange = 'today' | '7d' | '30d' | 'custom';

/** The accounting form exactly as the user filled it in (kept in webview state across hides). */
export interface AccountingForm {
  profile: string;
  system: string;
  range: AccountingRange;
  from: string;
  to: string;
  /** Comma- or space-separated job ids; empty for all. */
  jobIds: string;
  /** A JobStateClass (`completed`, `failed`, ...) or empty for all. */
  state: string;
  account: string;
  partition: string;
  name: string;
  allUsers: boolean;
  /** Include the servers' transfer jobs (MoveFiles, IngressFileTransfer, …); left out by default. */
  transferJobs?: boolean;
}

/** One job of the result table: the columns only, times as epoch seconds. */
export interface AccountingRow {
  id: string;
  name: string;
  state: string;
  stateClass: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'other';
  partition?: string;
  account?: string;
  user?: string;
  nodes?: number;
  submit?: number;
  start?: number;
  end?: number;
  elapsed?: number;
  exitCode?: number;
  /** What the job used of what it asked for, 0..1, once asked for (Efficiency): CPU time, memory, time limit. */
  cpuEfficiency?: number;
  memoryEfficiency?: number;
  timeUsed?: number;
}

/** One job's efficiency, as the accounting panel adds it to its row. */
export interface AccountingEfficiency {
  id: string;
  cpuEfficiency?: number;
  memoryEfficiency?: number;
  timeUsed?: number;
}

/** A connection the form can query, with its systems (empty when signed out or unreachable). */
export interface AccountingConnection {
  profile: string;
  signedIn: boolean;
  systems: string[];
  /** Why `systems` is empty, user-readable. */
  error?: string;
}

/** Why a query produced no table. */
export type AccountingFailure = 'noConnection' | 'signedOut' | 'invalid' | 'api';

export type AccountingToWebview =
  | { type: 'init'; connections: AccountingConnection[]; preset?: Partial<AccountingForm> }
  /** `limit`: what the server could not cover of the query (e.g. v2's 7-day look-back), said next to the results. */
  | { type: 'results'; requestId: number; profile: string; system: string; rows: AccountingRow[]; queriedAt: number; limit?: string }
  | { type: 'failed'; requestId: number; failure: AccountingFailure; message: string }
  | { type: 'exported'; requestId: number; path?: string; error?: string }
  /** The answer to `efficiency`: the jobs' use (`usageRecorded` false: the cluster records no memory and CPU use), or why there is none. */
  | { type: 'efficiency'; requestId: number; rows: AccountingEfficiency[]; usageRecorded?: boolean; error?: string };

export type AccountingToHost =
  | { type: 'ready' }
  | { type: 'query'; requestId: number; form: AccountingForm }
  /** CSV of these rows, in this order (the table's current sort and filter). */
  | { type: 'export'; requestId: number; ids: string[] }
  | { type: 'openJob'; id: string; what: 'details' | 'output' }
  /** The efficiency of these finished jobs of the last results (one short job on the cluster). */
  | { type: 'efficiency'; requestId: number; ids: string[] }
  | { type: 'command'; command: 'addConnection' | 'signIn' }
  /** The webview drew the table for a results message (lets the host, and its tests, know it arrived). */
  | { type: 'rendered'; requestId: number; rows: number };

/** What the accounting webview keeps through `vscode.getState()` / `setState()`. */
export interface AccountingViewState {
  form: AccountingForm;
  results?: Extract<AccountingToWebview, { type: 'results' }>;
  sort: { column: keyof AccountingRow; descending: boolean };
  filter: string;
  page: number;
}

/* ---- Transfer Centre ---- */

export type TransferKindView = 'upload' | 'download' | 'move' | 'copy' | 'delete' | 'compress' | 'extract';
export type TransferStateView = 'running' | 'done' | 'failed' | 'cancelled';

/** One transfer as the Transfer Centre draws it (the host's record, flattened, plus what can be done). */
export interface TransferView {
  id: number;
  kind: TransferKindView;
  state: TransferStateView;
  source: string;
  destination?: string;
  startedAt: number;
  endedAt?: number;
  /** Current step: `staging`, `uploading`, `waiting`, `verifying`, `verified`, ... */
  phase?: string;
  message?: string;
  bytesDone?: number;
  bytesTotal?: number;
  partsDone?: number;
  partsTotal?: number;
  /** Part numbers (1-based) accepted so far, for the per-part strip of a multipart upload. */
  partsFinished?: number[];
  /** Bytes per second (smoothed while running; the average once done). */
  rate?: number;
  /** Seconds left. */
  eta?: number;
  verified?: boolean;
  sha256?: string;
  note?: string;
  error?: string;
  canCancel: boolean;
  canRetry: boolean;
  canResume: boolean;
  canOpen: boolean;
}

export type TransferAction = 'cancel' | 'retry' | 'resume' | 'open';

export type TransfersToWebview =
  /** The whole list (on ready, after a clear). */
  | { type: 'init'; transfers: TransferView[] }
  /** Changed records (each at its current state) and removed ids; throttled on the host. */
  | { type: 'update'; transfers: TransferView[]; removed: number[] }
  /** The answer to an `action` or `clear`. */
  | { type: 'done'; requestId: number; error?: string };

export type TransfersToHost =
  | { type: 'ready' }
  | { type: 'action'; requestId: number; action: TransferAction; id: number }
  | { type: 'clear'; requestId: number }
  /** The webview drew these rows (lets the host, and its tests, see what the user sees). */
  | { type: 'rendered'; rows: { id: number; state: TransferStateView; percent?: number; verified?: boolean }[] };

/** What the Transfer Centre webview keeps through `vscode.getState()` / `setState()`. */
export interface TransfersViewState {
  transfers: TransferView[];
  /** The row that had the focus, restored when shown again. */
  focused?: number;
}
