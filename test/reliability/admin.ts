/**
 * Admin helpers of the reliability suites beyond test/core/support.ts: early token expiry, and
 * the admin API of a gateway other than the one with-gateway started (the restart suite runs its own).
 */
import { t } from '../core/support';

export interface AdminTarget {
  admin: string;
  adminToken: string;
}

/** The gateway with-gateway started, when there is one. */
export function defaultAdmin(): AdminTarget | undefined {
  const g = t.gateway;
  return g?.admin && g.adminToken ? { admin: g.admin, adminToken: g.adminToken } : undefined;
}

export async function adminCall(to: AdminTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${to.admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${to.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Every token the gateway issued so far is refused as expired from now on. */
export async function expireTokens(to: AdminTarget | undefined = defaultAdmin()): Promise<number> {
  if (!to) throw new Error('no gateway admin API');
  return ((await adminCall(to, 'POST', '/tokens/expire')) as { expired: number }).expired;
}

export interface GatewayStats {
  requests: number;
  connections: number;
  tokenRequests: number;
  byRoute: Record<string, number>;
}

export async function stats(to: AdminTarget | undefined = defaultAdmin()): Promise<GatewayStats> {
  if (!to) throw new Error('no gateway admin API');
  return (await adminCall(to, 'GET', '/stats')) as GatewayStats;
}
