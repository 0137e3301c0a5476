/**
 * Open Destination: a remote file opens in an editor (and is revealed in the Explorer when it is
 * in the workspace), a remote folder is revealed; a local file opens in an editor. The same on
 * desktop and in the browser (revealFileInOS does nothing for a browser client).
 */
import * as vscode from 'vscode';
import type { TransferRecord } from '../../common/transferEvents';

export function destinationUri(r: TransferRecord): vscode.Uri | undefined {
  const d = r.destination;
  if (!d || d.startsWith('(')) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(d) ? vscode.Uri.parse(d, true) : vscode.Uri.file(d);
}

export async function openDestination(r: TransferRecord): Promise<vscode.Uri> {
  const uri = destinationUri(r);
  if (!uri) throw new Error(vscode.l10n.t('This transfer has no destination to open.'));
  const st = await vscode.workspace.fs.stat(uri).then(undefined, () => undefined);
  if (!st) throw new Error(vscode.l10n.t('{0} does not exist any more.', uri.scheme === 'file' ? uri.fsPath : uri.toString(true)));
  const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
  if (st.type & vscode.FileType.Directory) {
    if (!inWorkspace) throw new Error(vscode.l10n.t('{0} is a folder outside the workspace; add it to the workspace to reveal it.', uri.toString(true)));
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return uri;
  }
  await vscode.commands.executeCommand('vscode.open', uri, { preview: false });
  if (inWorkspace) await vscode.commands.executeCommand('revealInExplorer', uri);
  return uri;
}
