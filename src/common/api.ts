/**
 * What `activate()` returns: a small surface for the host tests and the activation benchmark
 * (`vscode.extensions.getExtension(...).exports`). Features never use it; they get services.
 */
import type * as vscode from 'vscode';
import type { ConnectionService } from './services';

export interface FirecrestExtensionApi {
  readonly connections: ConnectionService;
  /** Text of the connection status bar item, as the user sees it. */
  statusBarText(): string;
  /** Wall time `activate()` took, in milliseconds. */
  readonly activationMs: number;
  /** The extension's bundles (dist/extension*.js) loaded when `activate()` returned; the lazy parts are not among them. */
  readonly bundlesAtActivation: readonly string[];
  /** Settles once the deferred start-up work (bootstrap import, first connect) is done. */
  readonly ready: Promise<void>;
  /** Imports a bootstrap file the way activation does with FIRECREST_BOOTSTRAP; returns profile names. */
  importBootstrap(file: string): Promise<string[]>;
  /** Where this extension's logs and global state live (tests read the log and settings files). */
  readonly logUri: vscode.Uri;
  readonly globalStorageUri: vscode.Uri;
  /**
   * The `firecrest:` FileSystemProvider itself: host tests check the exact create/overwrite flags,
   * which `workspace.fs.writeFile` does not expose (it always creates, overwrites and makes parents).
   */
  readonly fileSystem?: vscode.FileSystemProvider;
  /**
   * The `firecrest` authentication provider (the Accounts menu's sessions). Host tests read its
   * sessions directly: `vscode.authentication.getSession` asks the user before an extension may
   * read a session, even its own provider's.
   */
  readonly accounts?: Pick<vscode.AuthenticationProvider, 'getSessions' | 'removeSession'>;
}
