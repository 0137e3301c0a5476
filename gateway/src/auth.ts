/**
 * Token issuing and checking. One RS256 key pair per state dir (so tokens survive a restart of the
 * same state dir), loaded once at start; verification answers exactly as the v2 server does (§1.3).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as JoseModule from 'jose' with { 'resolution-mode': 'import' };
import { ApiError } from './http/errors';

/** Tokens with fewer seconds left are refused (the v2 server's default `min_token_ttl`). */
export const MIN_TOKEN_TTL = 30;

type Key = JoseModule.CryptoKey | JoseModule.KeyObject;
/** jose is ESM-only; this project compiles to CommonJS, so it is loaded once with a dynamic import. */
type Jose = typeof JoseModule;

interface StoredKeys {
  kid: string;
  privateJwk: JoseModule.JWK;
  publicJwk: JoseModule.JWK;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

export class TokenService {
  /** Verified tokens -> username and expiry, so a busy client does not pay an RSA check per call. */
  private readonly cache = new Map<string, { username: string; exp: number; jti?: string }>();
  /** Token ids issued by this run and not yet expired early; `expireIssued()` moves them to `expiredEarly`. */
  private readonly issued = new Set<string>();
  private readonly expiredEarly = new Set<string>();
  /** Other issuers whose tokens the API accepts (the built-in identity provider): kid -> key, issuer, what an access token of theirs carries. */
  private readonly trusted = new Map<string, { key: Key; issuer: string; audience: string; typ: string }>();

  private constructor(
    private readonly jose: Jose,
    readonly kid: string,
    private readonly privateKey: Key,
    private readonly publicKey: Key,
    readonly issuer: string,
  ) {}

  /** Loads the key pair from `stateDir/jwt-keys.json`, creating it (mode 600) the first time. */
  static async load(stateDir: string, issuer: string): Promise<TokenService> {
    const jose = await import('jose');
    const { exportJWK, generateKeyPair, importJWK } = jose;
    const file = join(stateDir, 'jwt-keys.json');
    let stored: StoredKeys;
    if (existsSync(file)) {
      stored = JSON.parse(readFileSync(file, 'utf8')) as StoredKeys;
    } else {
      const pair = await generateKeyPair('RS256', { extractable: true });
      stored = { kid: randomUUID(), privateJwk: await exportJWK(pair.privateKey), publicJwk: await exportJWK(pair.publicKey) };
      writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    }
    const priv = await importJWK(stored.privateJwk, 'RS256');
    const pub = await importJWK(stored.publicJwk, 'RS256');
    if (priv instanceof Uint8Array || pub instanceof Uint8Array) throw new Error(`${file}: not an RSA key pair`);
    return new TokenService(jose, stored.kid, priv, pub, issuer);
  }

  /** Signs a service-account token (no `email` claim) for `username` issued to `clientId`. */
  async issue(username: string, clientId: string, lifetimeSeconds: number): Promise<IssuedToken> {
    const now = Math.floor(Date.now() / 1000);
    const jti = randomUUID();
    const token = await new this.jose.SignJWT({ preferred_username: username, azp: clientId, client_id: clientId, scope: 'firecrest', typ: 'Bearer' })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.kid })
      .setIssuedAt(now)
      .setExpirationTime(now + lifetimeSeconds)
      .setIssuer(this.issuer)
      .setSubject(clientId)
      .setJti(jti)
      .sign(this.privateKey);
    // Counted as issued once signed: an early expiry (`expireIssued`) that lands while this token
    // is being signed does not expire it on arrival, which no real token service would do.
    if (this.issued.size > 100_000) this.issued.clear();
    this.issued.add(jti);
    return { token, expiresIn: lifetimeSeconds };
  }

  /**
   * Accepts access tokens of another issuer signed with `publicJwk` (its `kid` names it), with the
   * same checks and error answers as this service's own tokens. Only its access tokens: they carry
   * `audience` and the JOSE type `typ` (RFC 9068 `at+jwt`). Its ID tokens, signed by the same key,
   * are for the client that signed in (their audience is the client id) and live longer: they are
   * refused as invalid.
   */
  async trust(issuer: string, publicJwk: JoseModule.JWK, accessTokens: { audience: string; typ: string }): Promise<void> {
    if (!publicJwk.kid) throw new Error('a trusted key needs a kid');
    const key = await this.jose.importJWK(publicJwk, 'RS256');
    if (key instanceof Uint8Array) throw new Error(`${issuer}: not an RSA key`);
    this.trusted.set(publicJwk.kid, { key, issuer, ...accessTokens });
  }

  /**
   * Checks a bearer token and returns its username, or throws the ApiError the v2 server answers with.
   * The failing token is echoed in an `auth-token` header, as the real server does.
   */
  async verify(token: string): Promise<string> {
    const now = Date.now() / 1000;
    let entry = this.cache.get(token);
    if (!entry) {
      entry = await this.verifySignature(token);
      if (this.cache.size > 5000) this.cache.clear();
      this.cache.set(token, entry);
    }
    const fail = (message: string): ApiError => new ApiError(401, message, { headers: { 'auth-token': token } });
    if (entry.jti !== undefined && this.expiredEarly.has(entry.jti)) throw fail('Access token expired');
    if (entry.exp <= now) {
      this.cache.delete(token);
      throw fail('Access token expired');
    }
    if (entry.exp - now < MIN_TOKEN_TTL) throw fail(`Access token expires too soon (less than ${MIN_TOKEN_TTL}s remaining).`);
    if (!entry.username) throw new ApiError(400, "Authentication token 'preferred_username' claim is missing");
    return entry.username;
  }

  /**
   * Admin (tests): every token issued so far by this run is refused from now on as expired, as if
   * its `exp` had come early (an identity provider whose clock runs ahead of the client's, a
   * revoked session). Returns how many tokens that affected.
   */
  expireIssued(): number {
    const n = this.issued.size;
    for (const jti of this.issued) this.expiredEarly.add(jti);
    this.issued.clear();
    return n;
  }

  private async verifySignature(token: string): Promise<{ username: string; exp: number; jti?: string }> {
    const fail = (message: string): ApiError => new ApiError(401, message, { headers: { 'auth-token': token } });
    let kid: string | undefined;
    try {
      kid = this.jose.decodeProtectedHeader(token).kid;
    } catch {
      throw fail('Access token is invalid.');
    }
    const other = kid !== undefined && kid !== this.kid ? this.trusted.get(kid) : undefined;
    if (kid !== undefined && kid !== this.kid && !other) throw fail("Token's public key not found.");
    try {
      // A token from another issuer, or one that never expires, is not one of ours: both are refused.
      const { payload } = await this.jose.jwtVerify(token, other?.key ?? this.publicKey, other
        ? { algorithms: ['RS256'], issuer: other.issuer, audience: other.audience, typ: other.typ, requiredClaims: ['exp', 'iss', 'aud'] }
        : { algorithms: ['RS256'], issuer: this.issuer, requiredClaims: ['exp', 'iss'] });
      const username = typeof payload.preferred_username === 'string' ? payload.preferred_username : '';
      return { username, exp: payload.exp ?? 0, jti: typeof payload.jti === 'string' ? payload.jti : undefined };
    } catch (e) {
      if (e instanceof this.jose.errors.JWTExpired) throw fail('Access token expired');
      throw fail('Access token is invalid.');
    }
  }
}
