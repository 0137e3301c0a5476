/**
 * What about the connections should repaint a tree: the set of profiles and whether each is signed
 * out. Not the transient states (connecting, error): the trees themselves cause those when they
 * fetch, and reacting to them would loop.
 */
import type * as vscode from 'vscode';
import type { ConnectionService } from '../common/services';

export function connectionSignature(connections: ConnectionService): string {
  return connections
    .connections()
    .map((c) => `${c.profile.name}|${c.profile.url}|${c.state === 'signed-out' ? 'out' : 'in'}`)
    .join('\n');
}

/** Calls `listener` when the signature changes. */
export function onConnectionsChanged(connections: ConnectionService, listener: () => void): vscode.Disposable {
  let last = connectionSignature(connections);
  return connections.onDidChange(() => {
    const now = connectionSignature(connections);
    if (now === last) return;
    last = now;
    listener();
  });
}

/** Calls `listener` when a profile starts or stops answering ("reconnecting" and back). */
export function onReachabilityChanged(connections: ConnectionService, listener: () => void): vscode.Disposable {
  const signature = (): string => connections.connections().filter((c) => c.unreachableSince !== undefined).map((c) => c.profile.name).join('\n');
  let last = signature();
  return connections.onDidChange(() => {
    const now = signature();
    if (now === last) return;
    last = now;
    listener();
  });
}
