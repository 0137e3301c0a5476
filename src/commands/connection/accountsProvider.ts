/**
 * The `firecrest` authentication provider: each OIDC profile a person is signed in to is a
 * session in VS Code's Accounts menu. Signing out there signs the profile out everywhere (the
 * refresh token is revoked and forgotten); several sites and identities can be signed in at once.
 * A session's access token comes from the profile's one shared client.
 */
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import { isOidc } from '../../common/profiles';
import type { Log } from '../../common/services';

export const AUTH_PROVIDER_ID = 'firecrest';

export class FirecrestAuthenticationProvider implements vscode.AuthenticationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>();
  readonly onDidChangeSessions = this.changed.event;
  private known = new Map<string, vscode.AuthenticationSession>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly connections: Connections,
    private readonly log: Log,
  ) {
    this.subs.push(this.changed, connections.onDidChange(() => void this.announce()));
    void this.announce();
  }

  /** Tells VS Code which sessions came and went since the last look. */
  private async announce(): Promise<void> {
    const now = new Map((await this.sessionsNow()).map((s) => [s.id, s]));
    const added = [...now.values()].filter((s) => !this.known.has(s.id));
    const removed = [...this.known.values()].filter((s) => !now.has(s.id));
    this.known = now;
    if (added.length || removed.length) this.changed.fire({ added, removed, changed: [] });
  }

  private signedInOidc(): string[] {
    return this.connections.connections().filter((c) => isOidc(c.profile) && c.state !== 'signed-out').map((c) => c.profile.name);
  }

  /** Sessions without touching the network: the access token is fetched only when one is asked for by scope. */
  private async sessionsNow(): Promise<vscode.AuthenticationSession[]> {
    const out: vscode.AuthenticationSession[] = [];
    for (const name of this.signedInOidc()) {
      const who = await this.connections.identity(name);
      const user = who?.username ?? who?.subject ?? name;
      out.push({ id: name, accessToken: '', account: { id: `${name}/${who?.subject ?? user}`, label: `${user} @ ${name}` }, scopes: [name] });
    }
    return out;
  }

  /**
   * Sessions, all or those of the profiles named as scopes; with `options.account` (VS Code's
   * account picker, `getSession(…, { account })`), only that account's.
   */
  async getSessions(scopes: readonly string[] | undefined, options: vscode.AuthenticationProviderSessionOptions = {}): Promise<vscode.AuthenticationSession[]> {
    let all = await this.sessionsNow();
    if (options.account) all = all.filter((s) => s.account.id === options.account?.id);
    if (!scopes?.length) return all;
    // Asked for one profile (by its name as the scope): with a usable access token.
    const wanted = all.filter((s) => scopes.includes(s.id));
    return Promise.all(wanted.map(async (s) => ({ ...s, accessToken: await (await this.connections.client(s.id)).accessToken() })));
  }

  /**
   * Signs a profile in: the one named as a scope, the one an account (`options.account`, an id
   * `<profile>/<subject>`) belongs to, the only one there is, or the one the person picks.
   */
  async createSession(scopes: readonly string[], options: vscode.AuthenticationProviderSessionOptions = {}): Promise<vscode.AuthenticationSession> {
    const candidates = this.connections.connections().filter((c) => isOidc(c.profile)).map((c) => c.profile.name);
    let name = scopes.find((s) => candidates.includes(s)) ?? profileOfAccount(options.account, candidates);
    name ??= candidates.length === 1 ? candidates[0] : await vscode.window.showQuickPick(candidates, { placeHolder: vscode.l10n.t('Sign in to which FirecREST connection?') });
    if (!name) throw new Error(vscode.l10n.t('No FirecREST connection was chosen.'));
    await vscode.commands.executeCommand('firecrest.signIn', name);
    const session = (await this.getSessions([name]))[0];
    if (!session) throw new Error(vscode.l10n.t('The sign-in to {0} did not complete.', name));
    return session;
  }

  async removeSession(sessionId: string): Promise<void> {
    this.log.info(`Accounts menu: signing out of "${sessionId}"`);
    await this.connections.signOut(sessionId);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

/** The profile an account id (`<profile>/<subject>`) belongs to; profile names may hold `/`, so the longest match wins. */
export function profileOfAccount(account: vscode.AuthenticationSessionAccountInformation | undefined, profiles: readonly string[]): string | undefined {
  if (!account) return undefined;
  return profiles.filter((p) => account.id.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
}

export function registerAccountsProvider(connections: Connections, log: Log): vscode.Disposable & { provider: FirecrestAuthenticationProvider } {
  const provider = new FirecrestAuthenticationProvider(connections, log);
  const registration = vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, 'FirecREST', provider, { supportsMultipleAccounts: true });
  return Object.assign(vscode.Disposable.from(registration, provider), { provider });
}
