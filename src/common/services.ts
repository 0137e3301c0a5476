/**
 * What the composition root hands to every feature. Features depend on these interfaces, never on
 * each other.
 */
import type * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import type { ConnectionProfile, System } from '../core/model';
import type { JobFollowUps } from './jobFollowUps';
import type { JobDependencies } from './jobDependencies';
import type { JobSubmitter } from './jobSubmitter';
import type { TestSeam } from './testSeam';

/** `reconnecting`: connected, but the server stopped answering; requests are being tried again. */
export type ConnectionState = 'signed-out' | 'connecting' | 'connected' | 'reconnecting' | 'error';

export interface ConnectionInfo {
  profile: ConnectionProfile;
  state: ConnectionState;
  /** Server version once connected. */
  serverVersion?: string;
  /** Last connection error, user-readable (never contains a secret). */
  error?: string;
  /** Since when (epoch ms) the server has not answered (state `reconnecting`). */
  unreachableSince?: number;
}

/** Profiles, secrets and the ONE shared client per profile. */
export interface ConnectionService {
  readonly onDidChange: vscode.Event<void>;
  /** A profile's server answers again after it did not ("reconnecting…" → "connected"): views refresh. */
  readonly onDidRecover: vscode.Event<string>;
  /** All configured profiles with their state. */
  connections(): ConnectionInfo[];
  /** The profile used when a caller names none (single profile, or the first). */
  defaultProfileName(): string | undefined;
  /**
   * The signed-in client of a profile (default profile when omitted). Connects lazily and
   * single-flight; rejects with UnauthorizedError when there is no secret (signed out).
   */
  client(profileName?: string): Promise<FirecrestClient>;
  /** Asks the profile's server now whether it answers (Retry); recovers the profile when it does. */
  checkNow(profileName: string): Promise<boolean>;
  /** Systems of a profile (cached briefly; `refresh` forces a new request). */
  systems(profileName?: string, refresh?: boolean): Promise<System[]>;
  /** True when more than one profile is configured (URIs then carry the profile). */
  readonly multiProfile: boolean;
}

/** Tagged logging onto the one "FirecREST" LogOutputChannel; redaction happens inside. */
export interface Log {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
  /** A logger whose lines carry `[tag]`. */
  withTag(tag: string): Log;
  show(): void;
}

/** The steps of `contributes.walkthroughs[gettingStarted]`, by their ids. */
export type WalkthroughStep = 'connect' | 'openHome' | 'submit' | 'follow';

/** The Get Started walkthrough (common/walkthrough.ts). */
export interface WalkthroughSteps {
  /** The user did what `step` teaches. */
  reached(step: WalkthroughStep): void;
}

export interface ExtensionServices {
  context: vscode.ExtensionContext;
  log: Log;
  connections: ConnectionService;
  /** What jobs submitted from this window wait for (Run after…). */
  dependencies: JobDependencies;
  /** What to offer when a job submitted here ends (Fetch from Cluster after Sync and Submit). */
  followUps: JobFollowUps;
  /** Submit Job, for features other than the jobs feature (Sync and Submit). */
  submitter: JobSubmitter;
  /** The Get Started walkthrough's steps, ticked as the user reaches them. */
  walkthrough: WalkthroughSteps;
  /** What tests may look at (registered as `firecrest.test.*` outside production only). */
  testSeam: TestSeam;
}
