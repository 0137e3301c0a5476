/**
 * What the Systems and Jobs trees let commands do to them. The trees (src/views) implement these,
 * the commands (src/commands) call them; src/extension.ts hands one to the other.
 */
import type * as vscode from 'vscode';
import type { StorageReport } from '../core/facts/storage';
import type { JobRef } from './jobRef';

export interface JobsFilter {
  account?: string;
  /** Case-insensitive substring of the job name. */
  name?: string;
}

export interface JobsViewControl {
  refresh(): void;
  readonly allUsers: boolean;
  setAllUsers(on: boolean): void;
  readonly filter: JobsFilter;
  setFilter(filter: JobsFilter): void;
  /** Marks a job as one to watch (fresh submission) and refreshes soon. */
  track(ref: JobRef): void;
  /**
   * The user is cancelling this job here: its end is no news (no warning). Called before the
   * cancel is sent, since the tree may see the job end before the cancel's answer arrives; the
   * returned function takes it back when the cancel failed.
   */
  cancelling(ref: JobRef): () => void;
  /** Shows and selects the job in the tree (listing first when it is not there yet); false when no listing had it. */
  reveal(ref: JobRef): Promise<boolean>;
  /**
   * Refreshes, and resolves once a listing begun after this call has ended (true), or when
   * `timeoutMs` passed first (false; a hidden view lists nothing).
   */
  listed(timeoutMs: number): Promise<boolean>;
  /** Re-runs the failed load behind an error node. */
  retry(node: unknown): void;
  /** The nodes currently selected in the tree (for multi-select commands). */
  selection(): readonly unknown[];
  /** Test hook: the tree as plain data, loading every group. */
  snapshot(): Promise<unknown>;
}

export interface SystemsViewControl {
  refresh(): void;
  retry(node: unknown): void;
  /** Test hook: the tree as plain data, expanding every node. */
  snapshot(): Promise<unknown>;
}

/** What the storage feature knows of one system. */
export interface StorageState {
  report?: StorageReport;
  /** When the report was made (ms). */
  at?: number;
  running: boolean;
  error?: unknown;
  /** File systems the system marks as scratch (the purge preview is offered there). */
  scratch: ReadonlySet<string>;
}

/** The storage feature, as the Systems view reads it. */
export interface StorageSource {
  state(profile: string, system: string): StorageState | undefined;
  readonly onDidChange: vscode.Event<void>;
}
