/** Telling a person's identity provider that a sign-in ended: its refresh token is revoked (where the provider offers revocation). */
import type { Log } from '../common/services';
import type { ConnectionProfile } from '../core/model';
import { messageOf } from '../core/errors';

export async function revokeAtProvider(profile: ConnectionProfile, refreshToken: string, log: Log): Promise<void> {
  if (!profile.issuer || !profile.clientId) return;
  try {
    const { OidcClient } = await import('../core/auth/oidc.js');
    const oidc = await OidcClient.discover({ issuer: profile.issuer, clientId: profile.clientId, logger: log.withTag(`client:${profile.name}`), caFile: profile.caFile, insecureSkipTlsVerify: profile.insecureSkipTlsVerify, timeoutMs: 10_000 });
    try {
      await oidc.revoke(refreshToken);
    } finally {
      await oidc.close();
    }
  } catch (e) {
    log.warn(`Signed out of "${profile.name}" here; the identity provider could not be told: ${messageOf(e)}`);
  }
}
