/**
 * Which profile a connection command acts on: the one named by its argument (a name, a tree node
 * carrying `profile`/`profileName`/`name`, or a ConnectionInfo), else the only candidate, else a
 * quick pick. Returns undefined when the user dismissed the pick.
 */
import * as vscode from 'vscode';
import type { ConnectionInfo, ConnectionService } from '../../common/services';

export function profileNameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as { profileName?: unknown; name?: unknown; profile?: unknown };
  if (typeof o.profileName === 'string') return o.profileName;
  if (typeof o.profile === 'string') return o.profile;
  if (o.profile && typeof o.profile === 'object' && typeof (o.profile as { name?: unknown }).name === 'string') {
    return (o.profile as { name: string }).name;
  }
  return typeof o.name === 'string' ? o.name : undefined;
}

export async function pickProfile(
  connections: ConnectionService,
  arg: unknown,
  filter: (c: ConnectionInfo) => boolean,
  placeHolder: string,
  noneMessage: string,
): Promise<string | undefined> {
  const named = profileNameOf(arg);
  if (named !== undefined) return named;
  const candidates = connections.connections().filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(noneMessage);
    return undefined;
  }
  if (candidates.length === 1) return candidates[0].profile.name;
  const pick = await vscode.window.showQuickPick(
    candidates.map((c) => ({ label: c.profile.name, description: c.profile.url, detail: c.state })),
    { placeHolder },
  );
  return pick?.label;
}
