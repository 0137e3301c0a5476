/**
 * Sign In (with the kept credentials, else asks for the secret; validates and stores it), Sign Out
 * (ends the session, keeps the credentials) and Remove Credentials (forgets them, after asking).
 */
import * as vscode from 'vscode';
import type { Connections } from '../../common/connections';
import type { Log } from '../../common/services';
import { UnauthorizedError } from '../../core/errors';
import { registerCommand } from '../register';
import { confirmed } from './confirm';
import { pickProfile } from './pickProfile';

export function registerSignInOut(connections: Connections, log: Log): vscode.Disposable {
  const signIn = registerCommand('firecrest.signIn', log, async (arg?: unknown) => {
    const name = await pickProfile(
      connections,
      arg,
      (c) => c.state === 'signed-out' || c.state === 'error',
      vscode.l10n.t('Sign in to which FirecREST connection?'),
      vscode.l10n.t('Every FirecREST connection is signed in. Add one with "FirecREST: Add Connection…".'),
    );
    if (name === undefined) return undefined;
    const given = arg && typeof arg === 'object' ? (arg as { clientSecret?: unknown }).clientSecret : undefined;
    if (typeof given !== 'string' && (await connections.hasStoredCredentials(name))) {
      // Signed out, credentials kept: signing in again asks for nothing.
      try {
        const kept = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to {0}…', name) },
          () => connections.signIn(name),
        );
        void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0}: {1} system(s).', name, kept.systems.length));
        return { name, systems: kept.systems.map((s) => s.name) };
      } catch (e) {
        if (!(e instanceof UnauthorizedError)) throw e;
        log.warn(`The kept credentials of "${name}" were refused: ${e.message}`);
      }
    }
    const secret =
      typeof given === 'string'
        ? given
        : await vscode.window.showInputBox({
            title: vscode.l10n.t('Sign in to {0}', name),
            prompt: vscode.l10n.t('Client secret (kept in VS Code secret storage)'),
            password: true,
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The secret cannot be empty.')),
          });
    if (!secret) return undefined;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to {0}…', name) },
      () => connections.signIn(name, secret.trim()),
    );
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Signed in to {0}: {1} system(s).', name, result.systems.length),
    );
    return { name, systems: result.systems.map((s) => s.name) };
  });

  const signOut = registerCommand('firecrest.signOut', log, async (arg?: unknown) => {
    const name = await pickProfile(
      connections,
      arg,
      (c) => c.state !== 'signed-out',
      vscode.l10n.t('Sign out of which FirecREST connection?'),
      vscode.l10n.t('You are not signed in to any FirecREST connection.'),
    );
    if (name === undefined) return false;
    await connections.signOut(name);
    return true;
  });

  const removeCredentials = registerCommand('firecrest.removeCredentials', log, async (arg?: unknown) => {
    const name = await pickProfile(
      connections,
      arg,
      () => true,
      vscode.l10n.t('Forget the credentials of which FirecREST connection?'),
      vscode.l10n.t('There is no FirecREST connection.'),
    );
    if (name === undefined) return false;
    const question = vscode.l10n.t('Forget the client secret of {0}? You will have to enter it again to sign in.', name);
    if (!(await confirmed(arg, question, vscode.l10n.t('Remove Credentials')))) return false;
    await connections.removeCredentials(name);
    return true;
  });

  return vscode.Disposable.from(signIn, signOut, removeCredentials);
}
