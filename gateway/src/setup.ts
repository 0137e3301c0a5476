/**
 * Set-up of the unix side: the users clients map to, their stable client secrets, and their
 * scratch directories. Runs once at start; the resulting tables are cached for the server's life.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientConfig } from './config';
import { systemEnv, systemProgram } from './exec';
import type { UnixUser } from './users';

export interface ResolvedClient {
  clientId: string;
  clientSecret: string;
  /** The unix user name the client's tokens carry as `preferred_username`. */
  user: string;
}

export interface UserTable {
  clients: ResolvedClient[];
  /** Unix name -> user. */
  users: Map<string, UnixUser>;
  /** False when not root: every client is the current user and there is no permission isolation. */
  isolated: boolean;
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(cmd: string, args: string[]): string {
  return execFileSync(systemProgram(cmd), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: systemEnv() }).trim();
}

function userExists(name: string): boolean {
  try {
    run('getent', ['passwd', name]);
    return true;
  } catch {
    return false;
  }
}

/** Resolves uid/gid/home/groups of `name` from the system databases (getent + id). */
export function resolveUser(name: string): UnixUser {
  const pw = run('getent', ['passwd', name]).split(':');
  const gids = run('id', ['-G', name]).split(/\s+/).map(Number);
  const gnames = run('id', ['-Gn', name]).split(/\s+/);
  const gid = Number(pw[3]);
  const groups = gids.map((g, i) => ({ gid: g, name: gnames[i] ?? String(g) }));
  return {
    name: pw[0] ?? name,
    uid: Number(pw[2]),
    gid,
    group: groups.find((g) => g.gid === gid)?.name ?? run('id', ['-gn', name]),
    home: pw[5] ?? `/home/${name}`,
    groups,
  };
}

/** Secrets generated once per state dir (mode 600) so restarts keep the same credentials. */
function loadSecrets(stateDir: string): Record<string, string> {
  const file = join(stateDir, 'clients.json');
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
}

function saveSecrets(stateDir: string, secrets: Record<string, string>): void {
  writeFileSync(join(stateDir, 'clients.json'), JSON.stringify(secrets, null, 2), { mode: 0o600 });
}

/**
 * Creates the missing users (root only), resolves them and gives every client a secret.
 * `warn` receives the one-time notice that isolation is off when not root.
 */
export function setupUsers(clients: ClientConfig[], stateDir: string, warn: (msg: string) => void): UserTable {
  const secrets = loadSecrets(stateDir);
  const users = new Map<string, UnixUser>();
  const resolved: ResolvedClient[] = [];
  let current: UnixUser | undefined;
  if (!isRoot) {
    current = resolveUser(run('id', ['-un']));
    users.set(current.name, current);
    warn(`[gateway] not running as root: every client acts as the unix user "${current.name}" (no permission isolation)`);
  }
  for (const c of clients) {
    let user = current;
    if (!user) {
      if (!userExists(c.user)) run('useradd', ['-m', '-s', '/bin/bash', '-U', c.user]);
      user = users.get(c.user) ?? resolveUser(c.user);
      users.set(user.name, user);
    }
    const secret = c.clientSecret ?? secrets[c.clientId] ?? randomBytes(24).toString('base64url');
    secrets[c.clientId] = secret;
    resolved.push({ clientId: c.clientId, clientSecret: secret, user: user.name });
  }
  saveSecrets(stateDir, secrets);
  return { clients: resolved, users, isolated: isRoot };
}

/** Makes `<root>/<user>` for every user, owned by them (e.g. `/scratch/alice`). */
export function ensureUserDirs(root: string, users: Iterable<UnixUser>): void {
  mkdirSync(root, { recursive: true, mode: 0o755 });
  for (const u of users) {
    const dir = join(root, u.name);
    if (!existsSync(dir)) {
      mkdirSync(dir, { mode: 0o755 });
      chownSync(dir, u.uid, u.gid);
    }
  }
}
