/**
 * FirecREST: Open Remote Folder… — pick a connection, a system and a folder (starting at the
 * user's home, browsing with a quick pick that lists the typed folder's subfolders), then add it to
 * the workspace or open it in a new window. Other features call it with
 * `{system, path, profile?, newWindow?}` to skip the questions.
 */
import * as vscode from 'vscode';
import { FirecrestUri } from '../../core/uri';
import type { ConnectionService, Log } from '../../common/services';
import { registerCommand } from '../register';
import { pickRemoteFolder } from '../../common/remoteFolderPicker';
import { toVscodeUri } from '../../common/remoteUris';

export interface OpenRemoteFolderArgs {
  system: string;
  path: string;
  profile?: string;
  /** true: new window; false: add to this workspace; absent: ask (palette) / add (arguments). */
  newWindow?: boolean;
}

function isArgs(a: unknown): a is OpenRemoteFolderArgs {
  const o = a as Partial<OpenRemoteFolderArgs> | undefined;
  return !!o && typeof o === 'object' && typeof o.system === 'string' && typeof o.path === 'string';
}

export function registerOpenRemoteFolder(connections: ConnectionService, log: Log): vscode.Disposable {
  return registerCommand('firecrest.openRemoteFolder', log, async (arg) => {
    if (isArgs(arg)) {
      const profile = arg.profile ?? connections.defaultProfileName();
      return openFolder(connections, FirecrestUri.from({ system: arg.system, path: arg.path, profile: connections.multiProfile ? profile : undefined }), arg.newWindow ?? false);
    }
    const picked = await pickRemoteFolder(connections, { title: (system) => vscode.l10n.t('Open Remote Folder on {0}', system) });
    if (!picked) return;
    const where = await vscode.window.showQuickPick(
      [
        // VS Code reloads a window whose first folder changes (none or one becomes a multi-root
        // workspace): its editors close and reopen. Said before, not found out after.
        { label: vscode.l10n.t('Add to Workspace'), description: addReloads() ? vscode.l10n.t('VS Code reloads this window to add it') : undefined, newWindow: false },
        { label: vscode.l10n.t('Open in New Window'), description: addReloads() ? vscode.l10n.t('this window stays as it is') : undefined, newWindow: true },
      ],
      { title: vscode.l10n.t('Open {0} on {1}', picked.path, picked.system) },
    );
    if (!where) return;
    return openFolder(connections, picked, where.newWindow);
  });
}

/** Whether adding a folder makes VS Code reload this window (no folder yet, or a single-folder window). */
function addReloads(): boolean {
  return (vscode.workspace.workspaceFolders?.length ?? 0) <= 1 && vscode.workspace.workspaceFile === undefined;
}

async function openFolder(connections: ConnectionService, ref: FirecrestUri, newWindow: boolean): Promise<void> {
  const uri = toVscodeUri(ref);
  // Fail here, in words, rather than as an empty folder in the Explorer: a folder must exist and
  // be readable (a stat of /root succeeds; listing it does not).
  try {
    const st = await vscode.workspace.fs.stat(uri);
    if (!(st.type & vscode.FileType.Directory)) throw new Error(vscode.l10n.t('{0} on {1} is a file, not a folder.', ref.path, ref.system));
    await vscode.workspace.fs.readDirectory(uri);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') throw new Error(vscode.l10n.t('There is no folder {0} on {1}.', ref.path, ref.system), { cause: e });
    if (e instanceof vscode.FileSystemError && e.code === 'NoPermissions') throw new Error(vscode.l10n.t('You may not read {0} on {1} (permission denied).', ref.path, ref.system), { cause: e });
    throw e;
  }
  if (newWindow) {
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    return;
  }
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.some((f) => f.uri.toString() === uri.toString())) return;
  const label = `${ref.basename || '/'} — ${connections.multiProfile && ref.profile ? `${ref.profile}@` : ''}${ref.system}`;
  vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri, name: label });
}

