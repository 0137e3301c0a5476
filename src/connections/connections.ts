/**
 * The ConnectionService: profiles from the settings, their credentials (credentials.ts), and ONE
 * client per profile, created lazily and single-flight, rebuilt when the profile changes and
 * disposed on sign-out or removal; whether each server answers (liveness.ts). Validation (add,
 * sign in) goes through a throw-away client so that nothing is saved unless a token was obtained
 * and the systems could be listed.
 */
/* eslint-disable max-lines -- the connection service is one state machine per profile (entries, states, clients, sign-in and sign-out); its credentials, liveness probe and OIDC revocation are files of their own */
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
import { Liveness, PROBE_TIMEOUT_MS } from './liveness';
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
  /** Whether each profile's server answers (probes stop on dispose). */
  private readonly liveness = new Liveness();
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
  async checkNow(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    const client = await entry?.client?.catch(() => undefined);
    if (!entry || !client) return false;
    const up = await client.ping({ timeoutMs: PROBE_TIMEOUT_MS, signal: this.liveness.signal });
    if (this.entries.get(name) === entry) this.answered(name, up);
    if (!up) this.probe(name);
    return up;
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
    const client = await this.createClient(this.options(profile, secret, signedIn), this.events(profile.name));
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
      throw new UnauthorizedError(isOidc(profile) ? `Not signed in to "${name}": sign in through the browser.` : `No credentials are kept for "${name}": sign in with its client secret.`);
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
    this.liveness.dispose();
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
          ? 'No FirecREST connection is configured: run "FirecREST: Add Connection…".'
          : `There is no FirecREST connection named "${name}".`,
      );
    }
    return entry;
  }

  private async connect(entry: Entry): Promise<FirecrestClient> {
    const name = entry.profile.name;
    try {
      const secret = needsSecret(entry.profile) ? await this.credentials.secret(name) : undefined;
      if (!entry.hasSecret || (needsSecret(entry.profile) && !secret)) {
        throw new UnauthorizedError(`You are signed out of "${name}": run "FirecREST: Sign In".`);
      }
      this.secretRegistry.add(secret);
      this.setState(entry, 'connecting');
      const client = await this.createClient(this.options(entry.profile, secret), this.events(name));
      // The first authenticated request: "connected" means the server answered it.
      const serverVersion = await client.serverVersion().catch(async (e: unknown) => {
        if (e instanceof NotSupportedError) return undefined;
        await client.dispose();
        throw e;
      });
      if (this.entries.get(name) !== entry) {
        // Signed out, removed or changed while connecting: this client belongs to nobody.
        await client.dispose();
        throw new UnauthorizedError(`The connection "${name}" changed while connecting; try again.`);
      }
      // A v1 server without F7T_GENERAL_INFORMATION reports none: shown as such, never guessed.
      entry.serverVersion = serverVersion ?? (client.apiVersion === 'v1' ? 'version not reported' : undefined);
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
    if (isOidc(profile)) {
      const name = profile.name;
      // A throw-away client (validation) keeps its rotated token to itself; the profile's client
      // reads the stored one before each refresh, since another window may have rotated it.
      let own = secret;
      const stored = this.entries.get(name)?.profile === profile && secret !== undefined && !signedIn;
      return {
        profile,
        oidcSession: {
          refreshToken: async () => (stored ? await this.credentials.secret(name) : own),
          onRefreshToken: async (t) => {
            this.secretRegistry.add(t);
            own = t;
            if (stored) await this.credentials.storeSecret(name, t);
          },
          onSignInRequired: (e) => { if (stored) void this.sessionEnded(name, e.message); },
          initial: signedIn,
        },
        logger: this.log.withTag(`client:${name}`),
        userAgent: `firecrest-vscode/${vscode.version}`,
      };
    }
    const viaToken = !profile.tokenUrl && !profile.tokenCommand;
    return {
      profile,
      ...(viaToken ? { staticToken: secret } : { clientSecret: secret }),
      logger: this.log.withTag(`client:${profile.name}`),
      userAgent: `firecrest-vscode/${vscode.version}`,
    };
  }

  /** A profile's server answered again (or did not): "reconnecting…" and back, announced once. */
  private answered(name: string, yes: boolean): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    if (!yes && entry.state === 'connected') {
      this.setState(entry, 'reconnecting');
      this.log.warn(`"${name}" does not answer; trying again.`);
    } else if (yes && entry.state === 'reconnecting') {
      this.setState(entry, 'connected');
      this.log.info(`"${name}" answers again.`);
      this._onDidRecover.fire(name);
    }
  }

  /** A request went unanswered: is the server there at all? (Liveness; one probe per profile at a time.) */
  private probe(name: string): void {
    const entry = this.entries.get(name);
    if (!entry?.client) return;
    const current = (): boolean => this.entries.get(name) === entry && !!entry.client && (entry.state === 'connected' || entry.state === 'reconnecting');
    this.liveness.probe(name, {
      ping: async (timeoutMs, signal) => {
        const client = await entry.client;
        return client ? client.ping({ timeoutMs, signal }) : false;
      },
      current,
      answered: (up) => this.answered(name, up),
    });
  }

  private events(name: string): ClientEvents {
    const log = this.log.withTag(`http:${name}`);
    // The status bar follows the server's answers: a request without an answer for a few seconds,
    // or tried again because the server did not answer, starts a probe; a server that does not
    // answer it turns a connected profile into "reconnecting…"; the next answer back into
    // "connected", and the views refresh (onDidRecover).
    return {
      onRequest: (e) => {
        log.debug(`${e.method} ${e.route} -> ${e.status ?? 'no answer'} in ${Math.round(e.durationMs)} ms${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`);
        // (No answer may also be a cancel: only the probe says "reconnecting".)
        if (e.status !== undefined) this.answered(name, true);
      },
      onNoAnswerYet: (e) => {
        log.debug(`${e.route}: no answer after ${Math.round(e.waitedMs / 1000)} s`);
        this.probe(name);
      },
      onRetryWait: (e) => {
        log.info(`${e.route}: ${e.reason === 'rate-limit' ? 'rate limited' : 'transient failure'}, retrying in ${Math.round(e.waitMs / 1000)} s (${e.attempt}/${e.maxAttempts})`);
        if (e.reason === 'transient') this.probe(name);
      },
      onToken: (e) => log.debug(`new access token${e.expiresInSeconds ? ` (valid ${e.expiresInSeconds} s)` : ''}`),
    };
  }
}

function sameProfile(a: ConnectionProfile, b: ConnectionProfile): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
