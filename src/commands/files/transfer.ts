/**
 * Download to Local… and Upload from Local… through the direct routes. Both go through
 * `workspace.fs`, so the provider's size limit, atomic write and change events apply as in an
 * editor save.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { FirecrestUri } from '../../core/uri';
import type { ConnectionService, Log } from '../../common/services';
import { registerCommand } from '../register';
import { resolveResource, toVscodeUri, withProgress } from './resource';

function size(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return false;
    throw e;
  }
}

export function registerTransferCommands(connections: ConnectionService, log: Log): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.files.download', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('Remote file to download'));
      if (!r) return;
      const local = await vscode.window.showSaveDialog({
        title: vscode.l10n.t('Download {0} to', r.ref.basename),
        defaultUri: vscode.Uri.file(`${os.homedir()}/${r.ref.basename}`),
      });
      if (!local) return;
      const bytes = await withProgress(vscode.l10n.t('Downloading {0}…', r.ref.basename), async () => {
        const data = await vscode.workspace.fs.readFile(r.uri);
        await vscode.workspace.fs.writeFile(local, data);
        return data.byteLength;
      });
      void vscode.window.showInformationMessage(vscode.l10n.t('Downloaded {0} ({1}) to {2}', r.ref.basename, size(bytes), local.fsPath));
    }),
    registerCommand('firecrest.files.upload', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('Remote folder to upload into'));
      if (!r) return;
      const isDir = ((await vscode.workspace.fs.stat(r.uri)).type & vscode.FileType.Directory) !== 0;
      const folder: FirecrestUri = isDir ? r.ref : r.ref.dirname;
      const picked = await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Upload to {0}', folder.path),
        canSelectMany: true,
        canSelectFiles: true,
        canSelectFolders: false,
        openLabel: vscode.l10n.t('Upload'),
      });
      if (!picked || picked.length === 0) return;
      const targets: [vscode.Uri, vscode.Uri][] = [];
      for (const local of picked) {
        const name = local.path.slice(local.path.lastIndexOf('/') + 1);
        const target = toVscodeUri(folder.joinPath(name));
        if (await exists(target)) {
          const replace = vscode.l10n.t('Replace');
          const answer = await vscode.window.showWarningMessage(vscode.l10n.t('{0} already exists in {1}. Replace it?', name, folder.path), { modal: true }, replace);
          if (answer !== replace) continue;
        }
        targets.push([local, target]);
      }
      let total = 0;
      await withProgress(vscode.l10n.t('Uploading to {0}…', folder.path), async (signal) => {
        for (const [local, target] of targets) {
          if (signal.aborted) break;
          const data = await vscode.workspace.fs.readFile(local);
          await vscode.workspace.fs.writeFile(target, data);
          total += data.byteLength;
        }
      });
      if (targets.length > 0) void vscode.window.showInformationMessage(vscode.l10n.t('Uploaded {0} file(s) ({1}) to {2}', targets.length, size(total), folder.path));
    }),
  );
}
