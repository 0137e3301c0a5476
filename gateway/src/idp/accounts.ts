/**
 * The identity provider's people: a login, a password and (with `--mfa`) a TOTP secret each.
 * Passwords and TOTP secrets come from the configuration or are generated once per state dir
 * (mode 600), like the client secrets, so a restart keeps them. A login maps to the unix user
 * its tokens act as (`preferred_username`).
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';

export interface IdpUserConfig {
  login: string;
  /** The unix user the login acts as; defaults to the login. */
  user?: string;
  password?: string;
  /** Base32 TOTP secret; generated when absent and MFA is on. */
  totpSecret?: string;
}

export interface IdpAccount {
  login: string;
  /** Unix user name (`preferred_username`). */
  user: string;
  password: string;
  totpSecret: string;
}

function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export class Accounts {
  /** Last TOTP counter accepted per login: a code works once (RFC 6238 §5.2). */
  private readonly lastStep = new Map<string, number>();

  private constructor(
    private readonly byLogin: Map<string, IdpAccount>,
    readonly mfa: boolean,
  ) {}

  /** `resolveUser` maps a configured unix name to the one tokens carry (not root: the current user). */
  static load(stateDir: string, users: IdpUserConfig[], mfa: boolean, resolveUser: (name: string) => string): Accounts {
    const file = join(stateDir, 'idp-users.json');
    const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { password: string; totpSecret: string }>) : {};
    const byLogin = new Map<string, IdpAccount>();
    for (const u of users) {
      const kept = stored[u.login];
      const password = u.password ?? kept?.password ?? randomBytes(12).toString('base64url');
      const totpSecret = u.totpSecret ?? kept?.totpSecret ?? new Secret({ size: 20 }).base32;
      stored[u.login] = { password, totpSecret };
      byLogin.set(u.login, { login: u.login, user: resolveUser(u.user ?? u.login), password, totpSecret });
    }
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
    return new Accounts(byLogin, mfa);
  }

  get(login: string): IdpAccount | undefined {
    return this.byLogin.get(login);
  }

  list(): IdpAccount[] {
    return [...this.byLogin.values()];
  }

  /** The account when login and password match; the same answer for an unknown login and a wrong password. */
  checkPassword(login: string, password: string): IdpAccount | undefined {
    const a = this.byLogin.get(login);
    const ok = sameText(password, a?.password ?? randomBytes(12).toString('base64url'));
    return a && ok ? a : undefined;
  }

  /** A 6-digit code of the current or the previous 30 s step, not used before. */
  checkTotp(account: IdpAccount, code: string): boolean {
    const totp = this.totp(account);
    const delta = totp.validate({ token: code.replace(/\s+/g, ''), window: 1 });
    if (delta === null) return false;
    const step = Math.floor(Date.now() / 1000 / totp.period) + delta;
    if ((this.lastStep.get(account.login) ?? -1) >= step) return false;
    this.lastStep.set(account.login, step);
    return true;
  }

  totp(account: IdpAccount): TOTP {
    return new TOTP({ issuer: 'FirecREST gateway', label: account.login, secret: Secret.fromBase32(account.totpSecret), digits: 6, period: 30, algorithm: 'SHA1' });
  }
}
