/**
 * Choosing a folder on the cluster, the one way every feature asks for one (Open Remote Folder,
 * Map Folder to Cluster): a connection, a system, then a quick pick that starts at the user's home
 * (or a suggested path) and lists the typed folder's subfolders. Enter takes the typed path, which
 * need not exist yet (the caller says what then); choosing a listed folder enters it.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import type { System } from '../core/model';
import { FirecrestUri } from '../core/uri';
import { toVscodeUri } from './remoteUris';
import type { ConnectionService } from './services';
import { messageOf } from '../core/errors';

export interface RemoteFolderQuestion {
  /** The picker's title, with `{system}` for the system's name. */
  title: (system: string) => string;
  /** Where browsing starts, from the user's home on that system (default: the home). */
  start?: (home: string) => string;
  /** What Enter does with the typed folder, e.g. `Open {0}` (default). */
  action?: (path: string) => string;
}

/** A folder on the cluster, or undefined when the user gave up. */
export async function pickRemoteFolder(connections: ConnectionService, q: RemoteFolderQuestion): Promise<FirecrestUri | undefined> {
  const profile = await pickConnection(connections);
  if (profile === undefined) return undefined;
  const client = await connections.client(profile);
  const system = await pickSystem(await connections.systems(profile), client.profile.defaultSystem);
  if (!system) return undefined;
  const base = FirecrestUri.from({ system: system.name, path: '/', profile: connections.multiProfile ? profile : undefined });
  const home = await homeOf(client, system, base);
  const path = await browse(base, q.start ? q.start(home) : home, q);
  return path === undefined ? undefined : base.with({ path });
}

export async function pickConnection(connections: ConnectionService): Promise<string | undefined> {
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
    { title: vscode.l10n.t('Which connection?') },
  );
  return pick?.label;
}

async function pickSystem(systems: System[], preferred?: string): Promise<System | undefined> {
  if (systems.length <= 1) return systems[0];
  const items = systems.map((s) => ({ label: s.name, description: s.health.status, system: s }));
  items.sort((a, b) => Number(b.label === preferred) - Number(a.label === preferred));
  return (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Which system?') }))?.system;
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
function browse(base: FirecrestUri, start: string, q: RemoteFolderQuestion): Promise<string | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = q.title(base.system);
    qp.placeholder = vscode.l10n.t('Type a path (a trailing / lists that folder); Enter takes the typed folder, choosing a listed folder enters it');
    qp.matchOnDescription = false;
    let shown: string | undefined;
    const suggested = q.start && start !== '/' ? start : undefined;
    let generation = 0;
    const folderOf = (v: string) => (v.includes('/') ? v.slice(0, v.lastIndexOf('/') + 1) || '/' : '/');
    // Labelled with exactly what was typed, so the quick pick ranks it first: Enter opens the
    // typed folder, picking a listed folder (arrows, mouse) descends into it.
    const openItem = (v: string): Item => {
      const path = base.with({ path: v || '/' }).path;
      return { label: v || '/', description: `$(folder-opened) ${q.action ? q.action(path) : vscode.l10n.t('Open {0}', path)}`, path, open: true, alwaysShow: true };
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
        // Beside a suggested name not yet edited, its siblings show too (the quick pick would hide
        // every folder whose name is not the suggestion).
        const beside = suggested !== undefined && qp.value === suggested;
        qp.items = [openItem(qp.value), ...dirs.map((name): Item => ({ label: `${folder}${name}/`, path: `${folder}${name}`, alwaysShow: beside }))];
      } catch (e) {
        if (mine === generation) qp.items = [openItem(qp.value), { label: `$(warning) ${messageOf(e)}`, path: folder, alwaysShow: true }];
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
    // A home is listed (trailing /); a suggested folder is typed out, its parent listed beside it.
    qp.value = start === '/' ? '/' : suggested ?? `${start}/`;
    void refresh(qp.value);
    qp.show();
  });
}
