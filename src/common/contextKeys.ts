/**
 * Context keys the manifest's `when` clauses use (welcome views, menus). Kept in sync with the
 * connection service; names are listed here once.
 */
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { ConnectionService } from './services';

export const ContextKeys = {
  /** At least one profile is configured. */
  hasConnections: 'firecrest.hasConnections',
  /** At least one profile has its secret (or needs none). */
  signedIn: 'firecrest.signedIn',
  /** At least one profile is connected. */
  connected: 'firecrest.connected',
  /** More than one profile (URIs and trees then show the profile). */
  multiProfile: 'firecrest.multiProfile',
} as const;

export class ConnectionContextKeys extends Disposable {
  private last = '';

  constructor(private readonly connections: ConnectionService) {
    super();
    this._register(connections.onDidChange(() => this.update()));
    this.update();
  }

  private update(): void {
    const all = this.connections.connections();
    const values = {
      [ContextKeys.hasConnections]: all.length > 0,
      [ContextKeys.signedIn]: all.some((c) => c.state !== 'signed-out'),
      [ContextKeys.connected]: all.some((c) => c.state === 'connected'),
      [ContextKeys.multiProfile]: all.length > 1,
    };
    // setContext is an IPC round trip: only send when something changed.
    const key = JSON.stringify(values);
    if (key === this.last) return;
    this.last = key;
    for (const [k, v] of Object.entries(values)) void vscode.commands.executeCommand('setContext', k, v);
  }
}
