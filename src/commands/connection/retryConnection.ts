/**
 * FirecREST: Retry Connection (the Retry of "Cannot reach <site>"): asks the server now instead of
 * at the next try; the views refresh by themselves once it answers.
 */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import { cannotReach, siteOf } from '../../common/reachability';
import type { Log } from '../../common/services';
import { registerCommand } from '../register';

/** The profile a row or the palette names: `{ profile }`, else the one that does not answer. */
function profileOf(connections: Connections, arg: unknown): string | undefined {
  const named = fields(arg, { profile: text }).profile;
  return named ?? connections.connections().find((c) => c.unreachableSince !== undefined)?.profile.name ?? connections.defaultProfileName();
}

export function registerRetryConnection(connections: Connections, log: Log): vscode.Disposable {
  return registerCommand('firecrest.retryConnection', log, async (arg?: unknown) => {
    const name = profileOf(connections, arg);
    if (!name) return false;
    const info = connections.connections().find((c) => c.profile.name === name);
    const site = info ? siteOf(info.profile) : name;
    const up = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Trying {0}…', site) }, () => connections.checkNow(name));
    if (!up) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0}: it still does not answer. It is tried again by itself.', cannotReach(site)));
      return false;
    }
    // It answers: what failed in the views is asked for now (a recovery refreshes them too).
    void vscode.commands.executeCommand('firecrest.jobs.refresh');
    void vscode.commands.executeCommand('firecrest.systems.refresh');
    return true;
  });
}
