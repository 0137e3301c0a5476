/**
 * Connection profiles in the `firecrest.profiles` setting, and where their secrets live.
 * Settings never hold a secret: the secret store key is derived from the profile name.
 */
import * as vscode from 'vscode';
import type { ApiVersionSetting, ConnectionProfile } from '../core/model';

export const SETTINGS_SECTION = 'firecrest';
export const PROFILES_KEY = 'profiles';
export const PROFILES_SETTING = `${SETTINGS_SECTION}.${PROFILES_KEY}`;

/** The SecretStorage key of a profile's client secret (or static token). */
export function secretKey(profileName: string): string {
  return `firecrest.secret.${profileName}`;
}

/** True for a profile a person signs in to through the identity provider (its secret is the refresh token). */
export function isOidc(profile: ConnectionProfile): boolean {
  return profile.auth === 'oidc';
}

/** The SecretStorage key of who signed in to an OIDC profile (not secret; kept beside the token). */
export function identityKey(profileName: string): string {
  return `${secretKey(profileName)}.identity`;
}

/** Whether signing in to this profile needs a secret from the user (token-command profiles do not). */
export function needsSecret(profile: ConnectionProfile): boolean {
  return !profile.tokenCommand;
}

const API_VERSIONS: readonly ApiVersionSetting[] = ['auto', 'v1', 'v2'];

/** Validated, de-duplicated profiles from the settings; broken entries are skipped with a reason. */
export function readProfiles(onInvalid?: (why: string) => void): ConnectionProfile[] {
  const raw = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown[]>(PROFILES_KEY) ?? [];
  const seen = new Set<string>();
  const out: ConnectionProfile[] = [];
  for (const item of Array.isArray(raw) ? raw : []) {
    const p = normalizeProfile(item);
    if (typeof p === 'string') {
      onInvalid?.(p);
    } else if (seen.has(p.name)) {
      onInvalid?.(vscode.l10n.t('Connection "{0}" is defined twice; the first one is used.', p.name));
    } else {
      seen.add(p.name);
      out.push(p);
    }
  }
  return out;
}

/** A profile, or a reason why the value is not one. Unknown keys (e.g. a pasted secret) are dropped. */
export function normalizeProfile(item: unknown): ConnectionProfile | string {
  if (!item || typeof item !== 'object') return vscode.l10n.t('A connection entry is not an object.');
  const o = item as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? o[k] : undefined);
  const name = str('name')?.trim();
  const url = str('url')?.trim();
  if (!name) return vscode.l10n.t('A connection has no name.');
  if (!url) return vscode.l10n.t('Connection "{0}" has no url.', name);
  const api = str('apiVersion') as ApiVersionSetting | undefined;
  const method = str('clientAuthMethod');
  const profile: ConnectionProfile = {
    name,
    url: url.replace(/\/+$/, ''),
    apiVersion: api && API_VERSIONS.includes(api) ? api : 'auto',
  };
  const optional = ['tokenUrl', 'clientId', 'tokenCommand', 'defaultSystem', 'defaultAccount', 'caFile', 'issuer', 'scopes'] as const;
  for (const k of optional) {
    const v = str(k);
    if (v !== undefined) profile[k] = v;
  }
  if (method === 'client_secret_basic' || method === 'client_secret_post') profile.clientAuthMethod = method;
  if (str('auth') === 'oidc') {
    if (!profile.issuer || !profile.clientId) return vscode.l10n.t('Connection "{0}" signs in through OpenID Connect ("auth": "oidc") and needs "issuer" and "clientId".', name);
    profile.auth = 'oidc';
  }
  if (o.insecureSkipTlsVerify === true) profile.insecureSkipTlsVerify = true;
  return profile;
}

/** Adds or replaces (by name) a profile in the user settings. */
export async function saveProfile(profile: ConnectionProfile): Promise<void> {
  const others = readProfiles().filter((p) => p.name !== profile.name);
  await writeProfiles([...others, profile]);
}

export async function deleteProfile(name: string): Promise<void> {
  await writeProfiles(readProfiles().filter((p) => p.name !== name));
}

async function writeProfiles(profiles: ConnectionProfile[]): Promise<void> {
  await vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .update(PROFILES_KEY, profiles, vscode.ConfigurationTarget.Global);
}
