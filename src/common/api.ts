/**
 * What `activate()` returns: a small surface for the host tests and the activation benchmark
 * (`vscode.extensions.getExtension(...).exports`). Features never use it; they get services.
 */
import type { ConnectionService } from './services';

export interface FirecrestExtensionApi {
  readonly connections: ConnectionService;
  /** Text of the connection status bar item, as the user sees it. */
  statusBarText(): string;
  /** Wall time `activate()` took, in milliseconds. */
  readonly activationMs: number;
  /** Settles once the deferred start-up work (bootstrap import, first connect) is done. */
  readonly ready: Promise<void>;
}
