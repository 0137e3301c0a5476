/**
 * Which profile a connection command acts on: the one named by its argument (a name, a tree node
 * carrying `profile`/`profileName`/`name`, or a ConnectionInfo), else the only candidate, else a
 * quick pick. Returns undefined when the user dismissed the pick.
 */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { ConnectionInfo, ConnectionService } from '../../common/services';

export function profileNameOf(arg: unknown): string | undefined {
  // A name, `{profileName}`, `{profile}` (a name, or a tree node's profile object) or `{name}`.
  const o = fields(arg, { profileName: text, profile: (v) => text(v) ?? fields(v, { name: text }).name, name: text });
  return text(arg) ?? o.profileName ?? o.profile ?? o.name;
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
