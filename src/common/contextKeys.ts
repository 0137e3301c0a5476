/**
 * Context keys the manifest's `when` clauses use (welcome views, menus): every name is listed here
 * once. The connection ones are kept in step with the connection service here; the others by the
 * feature that owns them (Sync, Search, the Jobs view), which sets them by these names.
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
  /** A connected profile speaks API v1 with its extras (reservations, internal transfers, tasks). */
  v1Connected: 'firecrest.v1Connected',
  /** A connected profile can run commands inside jobs (API v2 attach). */
  attachAvailable: 'firecrest.attachAvailable',
  /** The active editor's file is inside a folder mapped to the cluster (Sync). */
  inSyncedFolder: 'firecrest.inSyncedFolder',
  /** The local roots of the mapped folders (the Explorer's Sync menu: `resourcePath in …`). */
  syncedFolders: 'firecrest.syncedFolders',
  /** A Search on Cluster is running (the Cluster Search view's Cancel). */
  searchRunning: 'firecrest.search.running',
  /** Every workspace folder is a `firecrest://` folder (the search menus replace VS Code's own). */
  remoteWorkspace: 'firecrest.remoteWorkspace',
  /** Sync's conflict review has a file open in a diff (its title bar offers Keep Local / the Cluster's). */
  reviewingConflict: 'firecrest.sync.reviewingConflict',
} as const;

export class ConnectionContextKeys extends Disposable {
  private last = '';
  private seq = 0;

  constructor(private readonly connections: ConnectionService) {
    super();
    this._register(connections.onDidChange(() => this.update()));
    this.update();
  }

  private update(): void {
    void this.updateAsync();
  }

  private async updateAsync(): Promise<void> {
    const seq = ++this.seq;
    const all = this.connections.connections();
    // Only connected profiles: their client exists, so asking for it costs no request.
    const live = (s: string): boolean => s === 'connected' || s === 'reconnecting';
    const clients = await Promise.all(all.filter((c) => live(c.state)).map((c) => this.connections.client(c.profile.name).catch(() => undefined)));
    const values = {
      [ContextKeys.hasConnections]: all.length > 0,
      [ContextKeys.signedIn]: all.some((c) => c.state !== 'signed-out'),
      [ContextKeys.connected]: all.some((c) => live(c.state)),
      [ContextKeys.multiProfile]: all.length > 1,
      [ContextKeys.v1Connected]: clients.some((c) => c?.apiVersion === 'v1' && (c.capabilities.tasks || c.capabilities.reservationsManagement)),
      [ContextKeys.attachAvailable]: clients.some((c) => c?.capabilities.attach === true),
    };
    if (seq !== this.seq) return;
    // setContext is an IPC round trip: only send when something changed.
    const key = JSON.stringify(values);
    if (key === this.last) return;
    this.last = key;
    for (const [k, v] of Object.entries(values)) void vscode.commands.executeCommand('setContext', k, v);
  }
}

/** `firecrest.remoteWorkspace`, kept true while every workspace folder is a `firecrest://` one. */
export function trackRemoteWorkspace(): vscode.Disposable {
  const update = (): void => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    void vscode.commands.executeCommand('setContext', ContextKeys.remoteWorkspace, folders.length > 0 && folders.every((f) => f.uri.scheme === 'firecrest'));
  };
  update();
  return vscode.workspace.onDidChangeWorkspaceFolders(update);
}
