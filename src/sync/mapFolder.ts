/**
 * Map Folder to Cluster: a local folder of the workspace and a folder on the cluster (chosen with
 * the same picker as Open Remote Folder, created when missing), kept where the user says.
 */
import * as vscode from 'vscode';
import { fields, flag, oneOf, text, uri } from '../common/commandArgs';
import { pickRemoteFolder } from '../common/remoteFolderPicker';
import type { ConnectionService, Log } from '../common/services';
import { NotFoundError } from '../core/errors';
import { FirecrestUri } from '../core/uri';
import { askWhereKept, MAPPING_PLACES, type MappingPlace, type MappingStore } from './mappings';

export interface MapFolderDeps {
  connections: ConnectionService;
  mappings: MappingStore;
  log: Log;
  /** A mapping was saved: watch it, show it, count its waiting changes. */
  mapped(): void;
}

export async function mapFolder(d: MapFolderDeps, arg: unknown): Promise<{ local: string; remote: string; where: MappingPlace } | undefined> {
  const a = fields(arg, { local: text, remote: text, create: flag, where: oneOf(...MAPPING_PLACES) });
  const folderUri = uri(arg) ?? (a.local ? vscode.Uri.file(a.local) : await pickLocal());
  if (!folderUri) return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(folderUri);
  if (!folder || folder.uri.scheme !== 'file') throw new Error(vscode.l10n.t('Map a local folder of this workspace.'));
  let remote = a.remote;
  if (!remote) {
    // The same folder picker as Open Remote Folder, starting at <home>/<this folder's name>.
    const name = folderUri.path.split('/').pop() || 'project';
    const picked = await pickRemoteFolder(d.connections, {
      title: (system) => vscode.l10n.t('Map {0} to a folder on {1}', folderUri.fsPath === folder.uri.fsPath ? folder.name : vscode.workspace.asRelativePath(folderUri), system),
      start: (home) => `${home === '/' ? '' : home}/${name}`,
      action: (path) => vscode.l10n.t('Map to {0}', path),
    });
    if (!picked) return undefined;
    remote = picked.toString();
  }
  const target = FirecrestUri.parse(remote);
  const client = await d.connections.client(target.profile);
  try {
    await client.stat(target.system, target.path);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    const create = vscode.l10n.t('Create It');
    const ok = a.create ?? (await vscode.window.showInformationMessage(vscode.l10n.t('{0} does not exist on {1}. Create it?', target.path, target.system), { modal: true }, create)) === create;
    if (!ok) return undefined;
    await client.mkdir(target.system, target.path, { parents: true });
  }
  const local = vscode.workspace.asRelativePath(folderUri, false);
  const rel = folderUri.fsPath === folder.uri.fsPath ? '.' : local.startsWith(`${folder.name}/`) ? local.slice(folder.name.length + 1) : local;
  const where = a.where ?? (await askWhereKept(folder));
  if (!where) return undefined;
  await d.mappings.save(folder, { local: rel, remote: target.toString() }, where);
  d.log.info(`mapped ${folderUri.fsPath} to ${target.toString()}`);
  d.mapped();
  return { local: folderUri.fsPath, remote: target.toString(), where };
}

async function pickLocal(): Promise<vscode.Uri | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 1) return folders[0].uri;
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, defaultUri: folders[0]?.uri, openLabel: vscode.l10n.t('Map to Cluster') });
  return picked?.[0];
}
