/**
 * FirecREST: Open Remote Folder… — pick a connection, a system and a folder (starting at the
 * user's home, browsing with a quick pick that lists the typed folder's subfolders), then add it to
 * the workspace or open it in a new window. Other features call it with
 * `{system, path, profile?, newWindow?}` to skip the questions.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../core/client';
import type { System } from '../../core/model';
import { FirecrestUri } from '../../core/uri';
import type { ConnectionService, Log } from '../../common/services';
import { registerCommand } from '../register';
import { toVscodeUri } from './resource';

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
    const profile = await pickConnection(connections);
    if (profile === undefined) return;
    const client = await connections.client(profile);
    const system = await pickSystem(await connections.systems(profile), client.profile.defaultSystem);
    if (!system) return;
    const base = FirecrestUri.from({ system: system.name, path: '/', profile: connections.multiProfile ? profile : undefined });
    const home = await homeOf(client, system, base);
    const path = await browse(base, home);
    if (path === undefined) return;
    const where = await vscode.window.showQuickPick(
      [
        // VS Code reloads a window whose first folder changes (none or one becomes a multi-root
        // workspace): its editors close and reopen. Said before, not found out after.
        { label: vscode.l10n.t('Add to Workspace'), description: addReloads() ? vscode.l10n.t('VS Code reloads this window to add it') : undefined, newWindow: false },
        { label: vscode.l10n.t('Open in New Window'), description: addReloads() ? vscode.l10n.t('this window stays as it is') : undefined, newWindow: true },
      ],
      { title: vscode.l10n.t('Open {0} on {1}', path, system.name) },
    );
    if (!where) return;
    return openFolder(connections, base.with({ path }), where.newWindow);
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

async function pickConnection(connections: ConnectionService): Promise<string | undefined> {
  const all = connections.connections();
  if (all.length === 0) {
    const add = vscode.l10n.t('Add Connection…');
    if ((await vscode.window.showInformationMessage(vscode.l10n.t('No FirecREST connection is configured.'), add)) === add) {
      await vscode.commands.executeCommand('firecrest.addConnection');
    }
    return undefined;
  }
  if (all.length === 1) return all[0].profile.name;
  const pick = await vscode.window.showQuickPick(
    all.map((c) => ({ label: c.profile.name, description: c.profile.url, detail: c.state })),
    { title: vscode.l10n.t('Open Remote Folder: connection') },
  );
  return pick?.label;
}

async function pickSystem(systems: System[], preferred?: string): Promise<System | undefined> {
  if (systems.length <= 1) return systems[0];
  const items = systems.map((s) => ({ label: s.name, description: s.health.status, system: s }));
  items.sort((a, b) => Number(b.label === preferred) - Number(a.label === preferred));
  return (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Open Remote Folder: system') }))?.system;
}

/** /home/<user> when it exists, else <default work dir file system>/<user>, else that file system, else /. */
async function homeOf(client: FirecrestClient, system: System, base: FirecrestUri): Promise<string> {
  const work = system.fileSystems.find((f) => f.defaultWorkDir)?.path;
  let user: string | undefined;
  try {
    user = (await client.userInfo(system.name)).user.name;
  } catch {
    /* a site without userinfo: start from the work file system */
  }
  const candidates = [user && `/home/${user}`, user && work && base.with({ path: work }).joinPath(user).path, work].filter((p): p is string => !!p);
  for (const path of candidates) {
    try {
      const st = await vscode.workspace.fs.stat(toVscodeUri(base.with({ path })));
      if (st.type & vscode.FileType.Directory) return path;
    } catch {
      /* try the next one */
    }
  }
  return '/';
}

type Item = vscode.QuickPickItem & { path: string; open?: boolean };

/** A quick pick over folders: choosing a folder descends into it; the first item opens the typed path. */
function browse(base: FirecrestUri, start: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = vscode.l10n.t('Open Remote Folder on {0}', base.system);
    qp.placeholder = vscode.l10n.t('Type a path (a trailing / lists that folder); Enter opens the typed folder, choosing a listed folder enters it');
    qp.matchOnDescription = false;
    let shown: string | undefined;
    let generation = 0;
    const folderOf = (v: string) => (v.includes('/') ? v.slice(0, v.lastIndexOf('/') + 1) || '/' : '/');
    // Labelled with exactly what was typed, so the quick pick ranks it first: Enter opens the
    // typed folder, picking a listed folder (arrows, mouse) descends into it.
    const openItem = (v: string): Item => {
      const path = base.with({ path: v || '/' }).path;
      return { label: v || '/', description: `$(folder-opened) ${vscode.l10n.t('Open {0}', path)}`, path, open: true, alwaysShow: true };
    };
    const refresh = async (value: string) => {
      const folder = folderOf(value);
      const subdirs = qp.items.filter((i) => !i.open);
      qp.items = [openItem(value), ...subdirs];
      if (folder === shown) return;
      shown = folder;
      const mine = ++generation;
      qp.busy = true;
      try {
        const entries = await vscode.workspace.fs.readDirectory(toVscodeUri(base.with({ path: folder })));
        if (mine !== generation) return;
        const showHidden = value.slice(folder.length).startsWith('.');
        const dirs = entries
          .filter(([name, type]) => type & vscode.FileType.Directory && (showHidden || !name.startsWith('.')))
          .map(([name]) => name)
          .sort((a, b) => a.localeCompare(b));
        qp.items = [openItem(qp.value), ...dirs.map((name): Item => ({ label: `${folder}${name}/`, path: `${folder}${name}` }))];
      } catch (e) {
        if (mine === generation) qp.items = [openItem(qp.value), { label: `$(warning) ${e instanceof Error ? e.message : String(e)}`, path: folder, alwaysShow: true }];
      } finally {
        if (mine === generation) qp.busy = false;
      }
    };
    qp.onDidChangeValue((v) => void refresh(v));
    qp.onDidAccept(() => {
      const item = qp.activeItems[0];
      if (item && !item.open && !item.label.startsWith('$(warning)')) {
        qp.value = `${item.path}/`;
        void refresh(qp.value);
        return;
      }
      resolve(base.with({ path: item?.path ?? (qp.value || '/') }).path);
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
    qp.value = start === '/' ? '/' : `${start}/`;
    void refresh(qp.value);
    qp.show();
  });
}
