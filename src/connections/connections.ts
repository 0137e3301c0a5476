/**
 * The ConnectionService: profiles from the settings, their credentials (credentials.ts), and ONE
 * client per profile, created lazily and single-flight, rebuilt when the profile changes and
 * disposed on sign-out or removal; its client's options (clientOptions.ts); whether each server
 * answers (serverAnswers.ts). Validation (add,
 * sign in) goes through a throw-away client so that nothing is saved unless a token was obtained
 * and the systems could be listed.
 */
import * as vscode from 'vscode';
import type { ClientEvents, ClientOptions, FirecrestClient } from '../core/client';
import { messageOf, NotSupportedError, UnauthorizedError } from '../core/errors';
import type { ConnectionProfile, System } from '../core/model';
import { Disposable } from '../common/lifecycle';
import type { SecretRegistry } from '../common/log';
import type { OidcIdentity, OidcTokens } from '../core/auth/oidc';
import { deleteProfile, isOidc, needsSecret, PROFILES_SETTING, readProfiles, saveProfile } from '../common/profiles';
import type { ConnectionInfo, ConnectionService, ConnectionState, Log } from '../common/services';
import { CredentialStore } from './credentials';
import { clientOptions, type SessionStore } from './clientOptions';
import { ServerAnswers } from './serverAnswers';
import { revokeAtProvider } from './revokeSignIn';

export type ClientFactory = (options: ClientOptions, events?: ClientEvents) => Promise<FirecrestClient>;

const SYSTEMS_TTL_MS = 30_000;

interface Entry {
  profile: ConnectionProfile;
  hasSecret: boolean;
  state: ConnectionState;
  serverVersion?: string;
  error?: string;
  /** Since when (epoch ms) its server has not answered (state `reconnecting`). */
  unreachableSince?: number;
  client?: Promise<FirecrestClient>;
  systems?: { at: number; value: Promise<System[]> };
}

export interface Validation {
  systems: System[];
  serverVersion?: string;
}

export class Connections extends Disposable implements ConnectionService {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidRecover = this._register(new vscode.EventEmitter<string>());
  readonly onDidRecover = this._onDidRecover.event;
  /** A person's sign-in ended at the identity provider (refresh refused): once per ending. */
  private readonly _onDidEndSession = this._register(new vscode.EventEmitter<{ name: string; message: string }>());
  readonly onDidEndSession = this._onDidEndSession.event;
  private entries = new Map<string, Entry>();
  private readonly credentials: CredentialStore;
  /** Whether each profile's server answers, from its client's requests and probes. */
  private readonly answers: ServerAnswers<Entry>;
  private readonly sessions: SessionStore;
  /** Bumped on every reload so a connect that finishes after a change is discarded. */
  private generation = 0;

  constructor(
    secrets: vscode.SecretStorage,
    private readonly log: Log,
    private readonly secretRegistry: SecretRegistry,
    private readonly createClient: ClientFactory,
  ) {
    super();
    this.credentials = new CredentialStore(secrets);
    this.sessions = { credentials: this.credentials, secretRegistry, signInEnded: (name, message) => void this.sessionEnded(name, message) };
    this.answers = new ServerAnswers<Entry>({
      get: (name) => this.entries.get(name),
      setState: (entry, state) => this.setState(entry, state),
      recovered: (name) => this._onDidRecover.fire(name),
    }, log);
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(PROFILES_SETTING)) void this.reload();
      }),
    );
    // Another window signing in or out changes the same secret store.
    this._register(this.credentials.onDidChange(() => void this.reload()));
  }

  get multiProfile(): boolean {
    return this.entries.size > 1;
  }

  connections(): ConnectionInfo[] {
    return [...this.entries.values()].map((e) => ({
      profile: e.profile,
      state: e.state,
      ...(e.serverVersion ? { serverVersion: e.serverVersion } : {}),
      ...(e.error ? { error: e.error } : {}),
      ...(e.unreachableSince !== undefined ? { unreachableSince: e.unreachableSince } : {}),
    }));
  }

  /**
   * Asks a profile's server now whether it answers (Retry on "Cannot reach"): true when it does.
   * An answer after an outage recovers the profile (the views refresh); none keeps it "reconnecting".
   */
  checkNow(name: string): Promise<boolean> {
    return this.answers.checkNow(name);
  }

  defaultProfileName(): string | undefined {
    return this.entries.keys().next().value;
  }

  profile(name?: string): ConnectionProfile | undefined {
    const n = name ?? this.defaultProfileName();
    return n === undefined ? undefined : this.entries.get(n)?.profile;
  }

  isSignedIn(name: string): boolean {
    return this.entries.get(name)?.hasSecret ?? false;
  }

  /** Re-reads profiles and secret presence; drops clients whose profile changed or lost its secret. */
  async reload(): Promise<void> {
    const gen = ++this.generation;
    const profiles = readProfiles((why) => this.log.warn(why));
    const next = new Map<string, Entry>();
    for (const profile of profiles) {
      const secret = needsSecret(profile) ? await this.credentials.secret(profile.name) : undefined;
      this.secretRegistry.add(secret);
      // Signed out keeps the credentials (a marker next to them): Sign In uses them again.
      const signedOut = await this.credentials.isSignedOut(profile.name);
      const hasSecret = (!needsSecret(profile) || !!secret) && !signedOut;
      const old = this.entries.get(profile.name);
      if (old && old.hasSecret === hasSecret && sameProfile(old.profile, profile)) {
        next.set(profile.name, old);
      } else {
        next.set(profile.name, { profile, hasSecret, state: hasSecret ? 'connecting' : 'signed-out' });
      }
    }
    if (gen !== this.generation) return;
    for (const [name, old] of this.entries) {
      if (next.get(name) !== old) this.release(old);
    }
    this.entries = next;
    this._onDidChange.fire();
  }

  /**
   * Connects every signed-in profile that has no client yet, so "connecting" turns into connected or
   * error without waiting for a view to ask. Failures are recorded in the state, not thrown.
   */
  async connectPending(): Promise<void> {
    const pending = [...this.entries.values()].filter((e) => e.state === 'connecting' && !e.client);
    await Promise.allSettled(pending.map((e) => this.client(e.profile.name)));
  }

  client(profileName?: string): Promise<FirecrestClient> {
    const entry = this.entry(profileName);
    entry.client ??= this.connect(entry);
    return entry.client;
  }

  async systems(profileName?: string, refresh = false): Promise<System[]> {
    const entry = this.entry(profileName);
    const cached = entry.systems;
    if (!refresh && cached && Date.now() - cached.at < SYSTEMS_TTL_MS) return cached.value;
    const value = this.client(entry.profile.name).then((c) => c.systems());
    entry.systems = { at: Date.now(), value };
    value.catch(() => {
      if (entry.systems?.value === value) entry.systems = undefined;
    });
    return value;
  }

  /** Gets a token and lists systems with a throw-away client; throws a user-readable error otherwise. */
  async validate(profile: ConnectionProfile, secret: string | undefined, signedIn?: OidcTokens): Promise<Validation> {
    this.secretRegistry.add(secret);
    const client = await this.createClient(this.options(profile, secret, signedIn), this.answers.events(profile.name));
    try {
      const systems = await client.systems();
      const serverVersion = await client.serverVersion().catch(() => undefined);
      return { systems, serverVersion };
    } finally {
      await client.dispose();
    }
  }

  /** Validates, then stores the secret and the profile. Nothing is stored when validation fails. */
  async add(profile: ConnectionProfile, secret: string | undefined, signedIn?: OidcTokens): Promise<Validation> {
    this.secretRegistry.add(signedIn?.refreshToken);
    const result = await this.validate(profile, secret, signedIn);
    await this.credentials.storeIdentity(profile.name, signedIn?.identity);
    await this.store(profile, signedIn?.refreshToken ?? secret);
    this.log.info(`Connection "${profile.name}" saved (${result.systems.length} system(s)).`);
    return result;
  }

  /** Stores without contacting the server (the one-shot bootstrap of `npm start`). */
  async store(profile: ConnectionProfile, secret: string | undefined): Promise<void> {
    if (secret !== undefined) await this.credentials.storeSecret(profile.name, secret);
    await saveProfile(profile);
    await this.reload();
    void this.connectPending();
  }

  /** True when the profile's credentials are kept (signed out or not): Sign In can use them as they are. */
  async hasStoredCredentials(name: string): Promise<boolean> {
    const profile = this.entry(name).profile;
    return !needsSecret(profile) || (await this.credentials.secret(name)) !== undefined;
  }

  /** Validates, then stores the secret (`undefined`: the one kept) and clears the signed-out mark. */
  async signIn(name: string, given?: string, signedIn?: OidcTokens): Promise<Validation> {
    const profile = this.entry(name).profile;
    const secret = signedIn?.refreshToken ?? given ?? (needsSecret(profile) ? await this.credentials.secret(name) : undefined);
    if (needsSecret(profile) && secret === undefined) {
      throw new UnauthorizedError(isOidc(profile) ? vscode.l10n.t('Not signed in to "{0}": sign in through the browser.', name) : vscode.l10n.t('No credentials are kept for "{0}": sign in with its client secret.', name));
    }
    const result = await this.validate(profile, secret, signedIn);
    if (signedIn) await this.credentials.storeIdentity(name, signedIn.identity);
    if (secret !== undefined) await this.credentials.storeSecret(name, secret);
    await this.credentials.markSignedOut(name, false);
    await this.reload();
    this.log.info(`Signed in to "${name}".`);
    void this.connectPending();
    return result;
  }

  /**
   * Ends the session: the client and its token go, every window shows the profile signed out.
   * The credentials stay (Sign In uses them again); Remove Credentials forgets them.
   */
  async signOut(name: string): Promise<void> {
    const entry = this.entry(name);
    if (isOidc(entry.profile)) {
      await this.endOidcSession(entry);
      return;
    }
    await this.credentials.markSignedOut(name, true);
    this.release(entry);
    await this.reload();
    this.log.info(`Signed out of "${name}" (its credentials are kept; "Remove Credentials" forgets them).`);
  }

  /** Forgets the profile's client secret and signs it out. */
  async removeCredentials(name: string): Promise<void> {
    const entry = this.entry(name);
    this.secretRegistry.delete(await this.credentials.secret(name));
    await this.credentials.forget(name, 'all');
    this.release(entry);
    await this.reload();
    this.log.info(`Credentials of "${name}" removed; signed out.`);
  }

  /** Who signed in to an OIDC profile, as the ID token said. */
  identity(name: string): Promise<OidcIdentity | undefined> {
    return this.credentials.identity(name);
  }

  /**
   * A person signs out of an OIDC profile: the refresh token is revoked at the identity provider
   * (when it offers revocation) and forgotten, in every window. Signing in again opens the browser.
   */
  private async endOidcSession(entry: Entry): Promise<void> {
    const name = entry.profile.name;
    const refreshToken = await this.credentials.secret(name);
    await this.credentials.forget(name, 'all');
    this.release(entry);
    await this.reload();
    this.log.info(`Signed out of "${name}".`);
    if (refreshToken) await revokeAtProvider(entry.profile, refreshToken, this.log);
  }

  /** The identity provider refused the refresh token: the profile is signed out, and that is said once. */
  private async sessionEnded(name: string, message: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry?.hasSecret) return;
    this.log.warn(`The sign-in to "${name}" has ended: ${message}`);
    await this.credentials.forget(name, 'session');
    this.release(entry);
    await this.reload();
    this._onDidEndSession.fire({ name, message });
  }

  async remove(name: string): Promise<void> {
    const entry = this.entry(name);
    await this.credentials.forget(name, 'all');
    this.release(entry);
    await deleteProfile(name);
    await this.reload();
    this.log.info(`Connection "${name}" removed.`);
  }

  override dispose(): void {
    this.answers.dispose();
    for (const e of this.entries.values()) this.release(e);
    this.entries.clear();
    super.dispose();
  }

  private entry(profileName?: string): Entry {
    const name = profileName ?? this.defaultProfileName();
    const entry = name === undefined ? undefined : this.entries.get(name);
    if (!entry) {
      throw new UnauthorizedError(
        name === undefined
          ? vscode.l10n.t('No FirecREST connection is configured: run "FirecREST: Add Connection…".')
          : vscode.l10n.t('There is no FirecREST connection named "{0}".', name),
      );
    }
    return entry;
  }

  private async connect(entry: Entry): Promise<FirecrestClient> {
    const name = entry.profile.name;
    try {
      const secret = needsSecret(entry.profile) ? await this.credentials.secret(name) : undefined;
      if (!entry.hasSecret || (needsSecret(entry.profile) && !secret)) {
        throw new UnauthorizedError(vscode.l10n.t('You are signed out of "{0}": run "FirecREST: Sign In".', name));
      }
      this.secretRegistry.add(secret);
      this.setState(entry, 'connecting');
      const client = await this.createClient(this.options(entry.profile, secret), this.answers.events(name));
      // The first authenticated request: "connected" means the server answered it.
      const serverVersion = await client.serverVersion().catch(async (e: unknown) => {
        if (e instanceof NotSupportedError) return undefined;
        await client.dispose();
        throw e;
      });
      if (this.entries.get(name) !== entry) {
        // Signed out, removed or changed while connecting: this client belongs to nobody.
        await client.dispose();
        throw new UnauthorizedError(vscode.l10n.t('The connection "{0}" changed while connecting; try again.', name));
      }
      // A v1 server without F7T_GENERAL_INFORMATION reports none: shown as such, never guessed.
      entry.serverVersion = serverVersion ?? (client.apiVersion === 'v1' ? vscode.l10n.t('version not reported') : undefined);
      this.setState(entry, 'connected');
      this.log.info(`Connected to "${name}" (${client.apiVersion}${serverVersion ? `, server ${serverVersion}` : client.apiVersion === 'v1' ? ', the server reports no version: its 1.16 features are probed' : ''}).`);
      return client;
    } catch (e) {
      entry.client = undefined;
      const message = messageOf(e);
      this.setState(entry, entry.hasSecret ? 'error' : 'signed-out', message);
      throw e;
    }
  }

  private release(entry: Entry): void {
    const pending = entry.client;
    entry.client = undefined;
    entry.systems = undefined;
    pending?.then((c) => c.dispose()).catch(() => undefined);
  }

  private setState(entry: Entry, state: ConnectionState, error?: string): void {
    entry.state = state;
    entry.error = error;
    entry.unreachableSince = state === 'reconnecting' ? (entry.unreachableSince ?? Date.now()) : undefined;
    this._onDidChange.fire();
  }

  private options(profile: ConnectionProfile, secret: string | undefined, signedIn?: OidcTokens): ClientOptions {
    // A throw-away client (validation) keeps its rotated token to itself.
    const stored = this.entries.get(profile.name)?.profile === profile && secret !== undefined && !signedIn;
    return clientOptions(profile, secret, { stored, signedIn }, this.sessions, this.log);
  }
}

function sameProfile(a: ConnectionProfile, b: ConnectionProfile): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
