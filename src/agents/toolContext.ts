/**
 * The agent tools' view of the extension: the user's connections (their state, never a secret),
 * the one shared client of each, and files of the open workspace (a path outside it is refused).
 */
import * as vscode from 'vscode';
import { InvalidInputError, NotFoundError } from '../core/errors';
import { readInsideFolder } from '../core/tools/localFiles';
import type { ToolContext } from '../core/tools/index';
import type { ConnectionService } from '../common/services';

export function toolContext(connections: ConnectionService, signal: AbortSignal): ToolContext {
  return {
    connections: () => connections.connections().map((c) => ({ name: c.profile.name, url: c.profile.url, state: c.state, ...(c.error ? { error: c.error } : {}) })),
    client: (name) => connections.client(name),
    readLocal: (path) => readWorkspaceFile(path),
    defaultSystem: undefined,
    signal,
  };
}

/** A file of the workspace, by a path relative to a workspace folder (or absolute inside one). */
async function readWorkspaceFile(path: string): Promise<{ data: Uint8Array; shownAs: string }> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (!folders.length) throw new InvalidInputError(vscode.l10n.t('no local folder is open in this window: open the project first'));
  const candidates = path.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(path)
    ? [vscode.Uri.file(path)]
    : folders.map((f) => vscode.Uri.joinPath(f.uri, path));
  for (const uri of candidates) {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    // joinPath normalises `..`: a path that climbs out of every folder has none.
    if (!folder || folder.uri.scheme !== 'file') continue;
    try {
      return { data: await readInsideFolder(folder.uri.fsPath, uri.fsPath), shownAs: vscode.workspace.asRelativePath(uri) };
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      // Not in this folder: the next one.
    }
  }
  throw new InvalidInputError(vscode.l10n.t('{0} is not a file of the open workspace', path));
}
