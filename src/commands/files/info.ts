/** Show Checksum, Show File Type and Copy Remote Path. */
import * as vscode from 'vscode';
import type { ConnectionService, Log } from '../../common/services';
import { registerCommand } from '../register';
import { resolveResource } from './resource';

async function offerCopy(message: string, text: string): Promise<void> {
  const copy = vscode.l10n.t('Copy');
  if ((await vscode.window.showInformationMessage(message, copy)) === copy) await vscode.env.clipboard.writeText(text);
}

export function registerInfoCommands(connections: ConnectionService, log: Log): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.files.checksum', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File to checksum'));
      if (!r) return;
      const sum = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Checksum of {0}', r.ref.basename) },
        () => r.client.checksum(r.ref.system, r.ref.path),
      );
      void offerCopy(vscode.l10n.t('{0} of {1}: {2}', sum.algorithm.toUpperCase().replace('SHA256', 'SHA-256'), r.ref.basename, sum.checksum), sum.checksum);
      return sum;
    }),
    registerCommand('firecrest.files.fileType', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File to identify'));
      if (!r) return;
      const type = await r.client.fileType(r.ref.system, r.ref.path);
      void vscode.window.showInformationMessage(vscode.l10n.t('{0}: {1}', r.ref.basename || r.ref.path, type.trim()));
      return type.trim();
    }),
    registerCommand('firecrest.files.copyPath', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('Remote file or folder'));
      if (!r) return;
      await vscode.env.clipboard.writeText(r.ref.path);
      vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', r.ref.path), 3000);
      return r.ref.path;
    }),
  );
}
