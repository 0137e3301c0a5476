/**
 * Shared helpers of the core suites: a client for the target deployment, a scratch directory in the
 * user's default work dir, and the local gateway's admin API (faults, settings, stats).
 */
import { randomBytes } from 'node:crypto';
import { createClient, type ClientEvents, type ClientOptions, type FirecrestClient } from '../../src/core/index';
import { target, type Target } from '../support/target';

export const t: Target = target();

/** Options for a client of the target (override anything). */
export function clientOptions(over: Partial<ClientOptions> = {}, profileOver: Partial<ClientOptions['profile']> = {}): ClientOptions {
  return {
    profile: { name: 'test', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId, ...profileOver },
    clientSecret: t.clientSecret,
    requestTimeoutMs: 30_000,
    ...over,
  };
}

export function client(over: Partial<ClientOptions> = {}, profileOver: Partial<ClientOptions['profile']> = {}, events?: ClientEvents): Promise<FirecrestClient> {
  return createClient(clientOptions(over, profileOver), events);
}

/** A client acting as the gateway's second user (bob), local gateway only. */
/** A client of the second user (`t.secondUser`: skip with `secondUserMissing(t)` where there is none). */
export function bobClient(o: Partial<Parameters<typeof clientOptions>[1]> = {}): Promise<FirecrestClient> {
  const bob = t.secondUser;
  if (!bob) throw new Error('no second user: set FIRECREST_CLIENT_ID_2 and FIRECREST_CLIENT_SECRET_2');
  return createClient(clientOptions({ clientSecret: bob.clientSecret }, { ...o, clientId: bob.clientId }));
}

/** A fresh directory `<default work dir>/<user>/f7t-core-<tag>-<random>` (or under FIRECREST_TEST_DIR). */
export async function scratchDir(c: FirecrestClient, tag: string): Promise<string> {
  let base = process.env.FIRECREST_TEST_DIR;
  if (!base) {
    const sys = (await c.systems()).find((s) => s.name === t.system);
    const work = sys?.fileSystems.find((f) => f.defaultWorkDir)?.path ?? '/home';
    const user = (await c.userInfo(t.system)).user.name;
    base = `${work.replace(/\/+$/, '')}/${user}`;
  }
  const dir = `${base}/f7t-core-${tag}-${randomBytes(4).toString('hex')}`;
  await c.mkdir(t.system, dir, { parents: true });
  return dir;
}

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const g = t.gateway;
  if (!g?.admin || !g.adminToken) throw new Error('no gateway admin API');
  const res = await fetch(`${g.admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${g.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

export const gateway = {
  faults: (cfg: unknown) => admin('PUT', '/faults', cfg),
  clearFaults: () => admin('DELETE', '/faults'),
  settings: (s: Record<string, number>) => admin('PUT', '/settings', s) as Promise<Record<string, number>>,
  getSettings: () => admin('GET', '/settings') as Promise<Record<string, number>>,
  stats: () => admin('GET', '/stats') as Promise<{ requests: number; connections: number; byRoute: Record<string, number>; idleDrops: number }>,
  resetStats: () => admin('POST', '/stats/reset'),
  transferMethod: (method: 's3' | 'streamer' | 'wormhole') => admin('PUT', '/transfer-method', { method }),
  /** The upstream compat mode (`none` to leave it); the ingress poll and idle close follow it unless given. */
  compat: (mode: 'none' | 'upstream', ingressPollSeconds?: number, idleCloseSeconds?: number) => admin('PUT', '/compat', { mode, ingressPollSeconds, idleCloseSeconds }),
  idp: (s: Record<string, unknown>) => admin('PUT', '/idp', s),
  revokeIdpSessions: (login: string) => admin('POST', '/idp/revoke', { login }) as Promise<{ grantsRevoked: number }>,
};

export const enc = (s: string) => new TextEncoder().encode(s);
export const dec = (b: Uint8Array) => new TextDecoder().decode(b);
