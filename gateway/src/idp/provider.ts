/**
 * The gateway's identity provider: oidc-provider (a certified OpenID Connect server) configured
 * like a site's Keycloak realm for FirecREST. One public client for the extension (auth code +
 * PKCE with loopback redirects on any port, RFC 8252 §7.3, and the device grant), refresh tokens
 * with rotation, revocation and end-session. Access tokens are RS256 JWTs for the FirecREST API
 * whose `preferred_username` is the unix user.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as JoseModule from 'jose' with { 'resolution-mode': 'import' };
import type { default as ProviderClass, Configuration, KoaContextWithOIDC } from 'oidc-provider' with { 'resolution-mode': 'import' };
import type { Accounts } from './accounts';
import type { IdpStore } from './adapter';
import { deviceConfirmPage, deviceInputPage, donePage, escapeHtml, page } from './pages';

export type Provider = ProviderClass;

export interface IdpKeys {
  privateJwk: JoseModule.JWK;
  publicJwk: JoseModule.JWK;
  kid: string;
  cookieKeys: string[];
}

/** The signing key and cookie keys, created once per state dir (mode 600) so restarts keep them. */
export async function loadIdpKeys(stateDir: string): Promise<IdpKeys> {
  const file = join(stateDir, 'idp-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as IdpKeys;
  const { exportJWK, generateKeyPair } = await import('jose');
  const pair = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const keys: IdpKeys = {
    privateJwk: { ...(await exportJWK(pair.privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' },
    kid,
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

export interface IdpOptions {
  /** `<origin>/idp` */
  issuer: string;
  /** The FirecREST API's resource indicator and token audience. */
  resource: string;
  publicClientId: string;
  keys: IdpKeys;
  accounts: Accounts;
  store: IdpStore;
  /** Read per token: the admin API can change it at run time. */
  accessTokenLifetime: () => number;
  /** Told of each wrong or expired device user code, with the address it came from. */
  userCodeFailed: (address: string) => void;
}

const DAY = 24 * 3600;
const SCOPE = 'firecrest';
/** What the provider's access tokens for the FirecREST API carry: the audience, and the JOSE type of RFC 9068. */
export const ACCESS_TOKENS = Object.freeze({ audience: SCOPE, typ: 'at+jwt' });

export async function createProvider(o: IdpOptions): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const config: Configuration = {
    adapter: (name: string) => o.store.adapterFor(name),
    clients: [{
      client_id: o.publicClientId,
      client_name: 'FirecREST for VS Code',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      // Any port on these (RFC 8252 §7.3): oidc-provider ignores the port of loopback redirects of native clients.
      redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
    }],
    jwks: { keys: [o.keys.privateJwk] },
    cookies: { keys: o.keys.cookieKeys },
    findAccount: async (_ctx, id) => {
      const account = o.accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, preferred_username: account.user, name: account.login }) };
    },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'] },
    scopes: ['openid', 'offline_access', 'profile', SCOPE],
    // The profile claims go into the ID token: there is no userinfo endpoint (tokens are for FirecREST).
    conformIdTokenClaims: false,
    pkce: { required: () => true, methods: ['S256'] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx: KoaContextWithOIDC, form: string) => {
          ctx.body = page('Sign out', `<p>Sign out of the FirecREST gateway?</p>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`);
        },
        postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => {
          ctx.body = donePage('Signed out', 'You are signed out. You can close this window.');
        },
      },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: (ctx, form, _out, err) => {
          if (err) o.userCodeFailed(ctx.ip);
          ctx.body = deviceInputPage(form, err ? 'That code is not valid or has expired. Try again.' : undefined);
        },
        userCodeConfirmSource: (ctx, form, client, _info, userCode) => {
          ctx.body = deviceConfirmPage(form, client.clientName ?? client.clientId, userCode);
        },
        successSource: (ctx) => {
          ctx.body = donePage('Signed in', 'Your editor is signed in. You can close this window.');
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => o.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== o.resource) throw new errors.InvalidTarget();
          return { scope: SCOPE, audience: ACCESS_TOKENS.audience, accessTokenFormat: 'jwt', accessTokenTTL: o.accessTokenLifetime(), jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/idp/interaction/${interaction.uid}` },
    // The extension is the site's own first-party client: no consent screen, like Keycloak's
    // "consent required: off". The grant covers what was asked for, and the FirecREST scope.
    loadExistingGrant: async (ctx) => {
      const oidc = ctx.oidc;
      const existing = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client?.clientId ?? '');
      if (existing) {
        const found = await oidc.provider.Grant.find(existing);
        if (found) return found;
      }
      if (!oidc.session?.accountId || !oidc.client) return undefined;
      const grant = new oidc.provider.Grant({ accountId: oidc.session.accountId, clientId: oidc.client.clientId });
      const asked = oidc.params?.scope;
      const requested = (typeof asked === 'string' ? asked : 'openid').split(' ').filter((s) => s !== SCOPE);
      grant.addOIDCScope(requested.join(' '));
      grant.addOIDCClaims(['preferred_username', 'name']);
      grant.addResourceScope(o.resource, SCOPE);
      await grant.save();
      return grant;
    },
    // Refresh tokens for the extension whether or not `offline_access` survived the request (it
    // needs `prompt=consent` in oidc-provider), and they outlive the browser session, as Keycloak's do.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: () => true,
    extraTokenClaims: async (_ctx, token) => {
      const accountId = (token as { accountId?: string }).accountId;
      const account = accountId ? o.accounts.get(accountId) : undefined;
      return account ? { preferred_username: account.user } : undefined;
    },
    ttl: {
      AccessToken: () => o.accessTokenLifetime(),
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 14 * DAY,
      Session: 14 * DAY,
      Grant: 14 * DAY,
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page('Sign-in failed', Object.entries(out).map(([k, v]) => `<p><strong>${escapeHtml(k)}</strong>: ${escapeHtml(String(v))}</p>`).join(''));
    },
  };
  const provider = new Provider(o.issuer, config);
  provider.proxy = false;
  return provider;
}
