/**
 * What a profile's client is built with: its credentials the way the profile signs in (a client
 * secret for a token URL or command, a static token, or a person's OIDC session), a tagged logger
 * and the user agent. A person's session keeps its rotated refresh token where it came from: the
 * profile's own client in the credential store (another window may have rotated it since), a
 * throw-away client (validation) to itself.
 */
import * as vscode from 'vscode';
import type { ClientOptions } from '../core/client';
import type { OidcTokens } from '../core/auth/oidc';
import type { ConnectionProfile } from '../core/model';
import { isOidc } from '../common/profiles';
import type { SecretRegistry } from '../common/log';
import type { Log } from '../common/services';
import type { CredentialStore } from './credentials';

export interface SessionStore {
  credentials: CredentialStore;
  /** Secrets the log redacts (a refresh token rotated by the client joins them). */
  secretRegistry: SecretRegistry;
  /** The identity provider refused the refresh token: the profile's sign-in has ended. */
  signInEnded(name: string, message: string): void;
}

/**
 * `stored`: the client is the profile's own (its refresh token lives in the credential store);
 * `signedIn`: the tokens of a sign-in that just happened (validation before saving).
 */
export function clientOptions(profile: ConnectionProfile, secret: string | undefined, o: { stored: boolean; signedIn?: OidcTokens }, store: SessionStore, log: Log): ClientOptions {
  const base = { profile, logger: log.withTag(`client:${profile.name}`), userAgent: `firecrest-vscode/${vscode.version}` };
  if (!isOidc(profile)) {
    const viaToken = !profile.tokenUrl && !profile.tokenCommand;
    return { ...base, ...(viaToken ? { staticToken: secret } : { clientSecret: secret }) };
  }
  const name = profile.name;
  let own = secret;
  return {
    ...base,
    oidcSession: {
      refreshToken: async () => (o.stored ? await store.credentials.secret(name) : own),
      onRefreshToken: async (t) => {
        store.secretRegistry.add(t);
        own = t;
        if (o.stored) await store.credentials.storeSecret(name, t);
      },
      onSignInRequired: (e) => { if (o.stored) store.signInEnded(name, e.message); },
      initial: o.signedIn,
    },
  };
}
