/**
 * A profile's credentials in VS Code's secret storage: its secret (a client secret, a person's
 * refresh token, a token command's output is never kept), the person who signed in (from the ID
 * token), and the mark that it was signed out. Other windows hear of every change through the
 * shared `firecrest.secret.` prefix.
 */
import type * as vscode from 'vscode';
import { identityKey, secretKey } from '../common/profiles';
import type { OidcIdentity } from '../core/auth/oidc';

/** Next to the secret (same prefix, so other windows hear of it): the profile was signed out. */
const signedOutKey = (name: string): string => `${secretKey(name)}.signedOut`;

/** What `forget` removes: the session (secret and identity), or everything kept for the profile. */
export type Forget = 'session' | 'all';

export class CredentialStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** Changes of any profile's credentials, in this window or another. */
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith('firecrest.secret.')) listener();
    });
  }

  secret(name: string): Thenable<string | undefined> {
    return this.secrets.get(secretKey(name));
  }

  async storeSecret(name: string, secret: string): Promise<void> {
    await this.secrets.store(secretKey(name), secret);
  }

  async isSignedOut(name: string): Promise<boolean> {
    return (await this.secrets.get(signedOutKey(name))) !== undefined;
  }

  async markSignedOut(name: string, out: boolean): Promise<void> {
    if (out) await this.secrets.store(signedOutKey(name), '1');
    else await this.secrets.delete(signedOutKey(name));
  }

  /** Who signed in to an OIDC profile, as the ID token said. */
  async identity(name: string): Promise<OidcIdentity | undefined> {
    const raw = await this.secrets.get(identityKey(name));
    try {
      return raw ? (JSON.parse(raw) as OidcIdentity) : undefined;
    } catch {
      return undefined;
    }
  }

  async storeIdentity(name: string, identity: OidcIdentity | undefined): Promise<void> {
    if (identity) await this.secrets.store(identityKey(name), JSON.stringify(identity));
  }

  /** Removes the session's secret and identity; `all` also the signed-out mark. */
  async forget(name: string, what: Forget): Promise<void> {
    await this.secrets.delete(secretKey(name));
    await this.secrets.delete(identityKey(name));
    if (what === 'all') await this.secrets.delete(signedOutKey(name));
  }
}
