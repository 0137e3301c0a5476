/**
 * Add Connection: a guided series of inputs (name, API URL, API version, then how to sign in:
 * client credentials (token URL, client id, secret), a person through the site's identity
 * provider (issuer, public client id: signed in right away), or a token command), or one argument
 * object with the same fields for scripts and tests. Every path ends in `Connections.add`, which
 * validates (token + systems) before saving anything.
 */
import { fields, oneOf, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import { isOidc, normalizeProfile } from '../../common/profiles';
import type { Log } from '../../common/services';
import type { ApiVersionSetting, ConnectionProfile } from '../../core/model';
import { registerCommand } from '../register';
import { oidcSignIn, signInFlow, signInHooks, type SignInHooks } from './oidcSignIn';
import { messageOf } from '../../core/errors';

/** The argument form: `executeCommand('firecrest.addConnection', { name, url, ... })`. */
export interface AddConnectionArgs {
  name: string;
  url: string;
  apiVersion?: ApiVersionSetting;
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  defaultSystem?: string;
  /** `oidc`: sign in as a person through `issuer` (with the public `clientId`). */
  auth?: 'oidc';
  issuer?: string;
  scopes?: string;
  tokenCommand?: string;
  /** OIDC: `browser` or `device` (default: `firecrest.signIn.flow`). */
  flow?: 'browser' | 'device';
}

const STEPS = 7;

export function registerAddConnection(connections: Connections, log: Log): vscode.Disposable {
  return registerCommand('firecrest.addConnection', log, async (arg?: unknown) => {
    let draft = argsOf(arg);
    const interactive = draft === undefined;
    for (;;) {
      if (interactive) draft = await ask(connections, draft ?? {});
      if (!draft) return undefined;
      const { clientSecret, flow, ...fields } = draft;
      const profile = normalizeProfile({ apiVersion: 'auto', ...fields });
      if (typeof profile === 'string') throw new Error(profile);
      try {
        const result = isOidc(profile)
          ? await saveSignedIn(connections, log, profile, signInFlow(flow), signInHooks(arg))
          : await save(connections, profile, clientSecret);
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Connection {0} added: {1}.', profile.name, result.join(', ') || vscode.l10n.t('no systems')),
        );
        return { name: profile.name, systems: result };
      } catch (e) {
        if (!interactive) throw e;
        const retry = vscode.l10n.t('Edit and Retry');
        const message = messageOf(e);
        log.warn(`firecrest.addConnection: ${message}`);
        const pick = await vscode.window.showErrorMessage(
          vscode.l10n.t('Could not connect to {0}: {1}', profile.url, message),
          retry,
        );
        if (pick !== retry) return undefined;
      }
    }
  });
}

async function save(connections: Connections, profile: ConnectionProfile, secret: string | undefined): Promise<string[]> {
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking {0}…', profile.url) },
    () => connections.add(profile, secret),
  );
  return result.systems.map((s) => s.name);
}

/** An OIDC connection: the person signs in first; nothing is saved unless that and the systems listing work. */
async function saveSignedIn(connections: Connections, log: Log, profile: ConnectionProfile, flow: 'browser' | 'device', hooks: SignInHooks): Promise<string[]> {
  const tokens = await oidcSignIn(profile, log, flow, hooks);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking {0}…', profile.url) },
    () => connections.add(profile, undefined, tokens),
  );
  return result.systems.map((s) => s.name);
}

const ADD_ARGS = {
  name: text, url: text, apiVersion: oneOf<ApiVersionSetting>('auto', 'v1', 'v2'), tokenUrl: text, clientId: text, clientSecret: text,
  defaultSystem: text, auth: oneOf('oidc'), issuer: text, scopes: text, tokenCommand: text, flow: oneOf('browser', 'device'),
};

/** The argument form, when the argument names a URL (normalizeProfile checks the rest). */
function argsOf(arg: unknown): Partial<AddConnectionArgs> | undefined {
  const a = fields(arg, ADD_ARGS);
  return a.url !== undefined ? a : undefined;
}

/** The prompts; earlier answers are the defaults when the user retries after a failure. */
async function ask(connections: Connections, prev: Partial<AddConnectionArgs>): Promise<AddConnectionArgs | undefined> {
  const taken = new Set(connections.connections().map((c) => c.profile.name));
  const title = (n: number): string => vscode.l10n.t('Add FirecREST Connection ({0}/{1})', n, STEPS);
  const name = await input(title(1), vscode.l10n.t('A name for this connection, e.g. the centre or cluster'), prev.name, (v) =>
    !v.trim() ? vscode.l10n.t('Give the connection a name.') : taken.has(v.trim()) && v.trim() !== prev.name ? vscode.l10n.t('A connection named "{0}" exists already.', v.trim()) : undefined,
  );
  if (name === undefined) return undefined;
  const url = await input(title(2), vscode.l10n.t('FirecREST API base URL, e.g. https://api.example.org/firecrest/v2'), prev.url, validUrl);
  if (url === undefined) return undefined;
  const versions: { label: string; value: ApiVersionSetting; description: string }[] = [
    { label: 'auto', value: 'auto', description: vscode.l10n.t('ask the server') },
    { label: 'v2', value: 'v2', description: vscode.l10n.t('FirecREST v2') },
    { label: 'v1', value: 'v1', description: vscode.l10n.t('FirecREST v1') },
  ];
  const version = await vscode.window.showQuickPick(versions, { title: title(3), placeHolder: vscode.l10n.t('API version'), ignoreFocusOut: true });
  if (!version) return undefined;
  const modes = [
    { label: vscode.l10n.t('Sign in with my account'), mode: 'oidc' as const, detail: vscode.l10n.t("In the browser, through the site's identity provider (OpenID Connect). For people.") },
    { label: vscode.l10n.t('Client credentials'), mode: 'credentials' as const, detail: vscode.l10n.t('An OAuth2 client id and secret. For service accounts and scripts.') },
    { label: vscode.l10n.t('Token command'), mode: 'command' as const, detail: vscode.l10n.t('A command that prints a bearer token (e.g. a site CLI).') },
  ];
  const mode = await vscode.window.showQuickPick(modes, { title: title(4), placeHolder: vscode.l10n.t('How do you sign in?'), ignoreFocusOut: true });
  if (!mode) return undefined;
  const base = { name: name.trim(), url: url.trim(), apiVersion: version.value };
  if (mode.mode === 'oidc') {
    const issuer = await input(title(5), vscode.l10n.t('Identity provider (issuer) URL, e.g. https://auth.example.org/realms/hpc'), prev.issuer, validUrl);
    if (issuer === undefined) return undefined;
    const clientId = await input(title(6), vscode.l10n.t('Public client id registered for this extension'), prev.clientId, (v) => (v.trim() ? undefined : vscode.l10n.t('The client id cannot be empty.')));
    if (clientId === undefined) return undefined;
    return { ...base, auth: 'oidc', issuer: issuer.trim(), clientId: clientId.trim() };
  }
  if (mode.mode === 'command') {
    const tokenCommand = await input(title(5), vscode.l10n.t('Command that prints a bearer token on stdout'), prev.tokenCommand, (v) => (v.trim() ? undefined : vscode.l10n.t('The command cannot be empty.')));
    if (tokenCommand === undefined) return undefined;
    return { ...base, tokenCommand: tokenCommand.trim() };
  }
  const tokenUrl = await input(title(5), vscode.l10n.t('OAuth2 token URL (client-credentials grant)'), prev.tokenUrl, validUrl);
  if (tokenUrl === undefined) return undefined;
  const clientId = await input(title(6), vscode.l10n.t('Client id'), prev.clientId, (v) => (v.trim() ? undefined : vscode.l10n.t('The client id cannot be empty.')));
  if (clientId === undefined) return undefined;
  const clientSecret = await vscode.window.showInputBox({
    title: title(7),
    prompt: vscode.l10n.t('Client secret (kept in VS Code secret storage, never in settings)'),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('The secret cannot be empty.')),
  });
  if (clientSecret === undefined) return undefined;
  return { ...base, tokenUrl: tokenUrl.trim(), clientId: clientId.trim(), clientSecret: clientSecret.trim() };
}

function input(title: string, prompt: string, value: string | undefined, validateInput: (v: string) => string | undefined): Thenable<string | undefined> {
  return vscode.window.showInputBox({ title, prompt, value, ignoreFocusOut: true, validateInput });
}

function validUrl(v: string): string | undefined {
  try {
    const u = new URL(v.trim());
    return u.protocol === 'https:' || u.protocol === 'http:' ? undefined : vscode.l10n.t('Use an http(s) URL.');
  } catch {
    return vscode.l10n.t('This is not a URL.');
  }
}
