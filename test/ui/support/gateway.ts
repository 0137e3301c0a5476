/**
 * The local gateway's admin API from UI tests (faults, settings, request counts). Against a site's
 * deployment (FIRECREST_URL) there is none: `admin` does nothing and `adminAvailable` is false.
 */
import { target } from '../../support/target';

export function adminAvailable(): boolean {
  const gw = target().gateway;
  return !!(gw?.admin && gw.adminToken);
}

/** One admin call; its JSON answer, or undefined without a gateway or for an empty answer. */
export async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T | undefined> {
  const gw = target().gateway;
  if (!gw?.admin || !gw.adminToken) return undefined;
  const res = await fetch(`${gw.admin.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
  const text = await res.text();
  return text ? (JSON.parse(text) as T) : undefined;
}

/** Requests the gateway saw whose `METHOD /path` matches `route`. */
export async function requestsMatching(route: RegExp): Promise<number> {
  const stats = await admin<{ byRoute: Record<string, number> }>('GET', '/stats');
  return Object.entries(stats?.byRoute ?? {}).filter(([r]) => route.test(r)).reduce((n, [, c]) => n + c, 0);
}
