/** Remove Connection: after a modal confirmation, deletes the profile, its secret and its client. */
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import type { Log } from '../../common/services';
import { registerCommand } from '../register';
import { pickProfile } from './pickProfile';
import { confirmed } from './confirm';

export function registerRemoveConnection(connections: Connections, log: Log): vscode.Disposable {
  return registerCommand('firecrest.removeConnection', log, async (arg?: unknown) => {
    const name = await pickProfile(
      connections,
      arg,
      () => true,
      vscode.l10n.t('Remove which FirecREST connection?'),
      vscode.l10n.t('There is no FirecREST connection to remove.'),
    );
    if (name === undefined) return false;
    // Scripts and tests pass `{ name, confirmed: true }`.
    if (!(await confirmed(arg, vscode.l10n.t('Remove the FirecREST connection "{0}" and forget its secret?', name), vscode.l10n.t('Remove')))) return false;
    await connections.remove(name);
    return true;
  });
}
