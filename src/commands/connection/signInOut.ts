/**
 * Sign In (with the kept credentials, else asks for the secret; validates and stores it), Sign Out
 * (ends the session, keeps the credentials) and Remove Credentials (forgets them, after asking).
 */
import { fields, oneOf, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import type { Log } from '../../common/services';
import { UnauthorizedError } from '../../core/errors';
import { registerCommand } from '../register';
import { isOidc } from '../../common/profiles';
import { confirmed } from './confirm';
import { oidcSignIn, signInFlow, signInHooks } from './oidcSignIn';
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
    const profile = connections.profile(name);
    if (profile && isOidc(profile)) return signInPerson(connections, log, name, arg);
    const given = fields(arg, { clientSecret: text }).clientSecret;
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

  // The identity provider ended a person's session: said once, with the way back.
  const ended = connections.onDidEndSession(({ name }) => {
    const again = vscode.l10n.t('Sign In');
    void vscode.window.showWarningMessage(vscode.l10n.t('Your sign-in to {0} has ended. Sign in to {0} to go on; unsaved files stay as they are.', name), again).then((pick) => {
      if (pick === again) void vscode.commands.executeCommand('firecrest.signIn', name);
    });
  });

  return vscode.Disposable.from(signIn, signOut, removeCredentials, ended);
}

/**
 * Sign In for an OIDC profile: with the kept refresh token when there is one (no browser), else
 * through the identity provider. The argument may name the flow (`flow: 'browser' | 'device'`);
 * tests hand in `openUrl`/`onDeviceCode` to play the browser.
 */
async function signInPerson(connections: Connections, log: Log, name: string, arg: unknown) {
  const o = fields(arg, { flow: oneOf('browser', 'device') });
  if (await connections.hasStoredCredentials(name)) {
    try {
      const kept = await connections.signIn(name);
      return { name, systems: kept.systems.map((s) => s.name) };
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) throw e;
      log.info(`The kept sign-in of "${name}" is over (${e.message}); signing in again`);
    }
  }
  const profile = connections.profile(name);
  if (!profile) return undefined;
  const tokens = await oidcSignIn(profile, log, signInFlow(o.flow), signInHooks(arg));
  const result = await connections.signIn(name, undefined, tokens);
  const who = tokens.identity?.username ?? tokens.identity?.subject;
  void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0} as {1}: {2} system(s).', name, who ?? '?', result.systems.length));
  return { name, user: who, systems: result.systems.map((s) => s.name) };
}
