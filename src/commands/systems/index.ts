/** The Systems view's actions: refresh, retry an error node, open a filesystem as a remote folder. */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import type { SystemsViewControl } from '../../common/viewControls';
import { registerCommand } from '../register';

export function registerSystemsCommands(services: ExtensionServices, systems: SystemsViewControl): vscode.Disposable {
  const log = services.log.withTag('systems');
  const disposables = [
    registerCommand('firecrest.systems.refresh', log, () => systems.refresh()),
    registerCommand('firecrest.systems.retry', log, (node?: unknown) => systems.retry(node)),
    registerCommand('firecrest.systems.openFilesystem', log, async (node?: unknown) => {
      const n = fields(node, { profile: text, system: text, fs: (v) => fields(v, { path: text }).path });
      if (!n.system || !n.fs) throw new Error(vscode.l10n.t('Choose a filesystem in the Systems view.'));
      // The file system feature owns opening; it takes {system, path, profile}.
      return vscode.commands.executeCommand('firecrest.openRemoteFolder', { system: n.system, path: n.fs, profile: n.profile });
    }),
  ];
  services.testSeam.expose('systemsTree', () => systems.snapshot());
  return vscode.Disposable.from(...disposables);
}
