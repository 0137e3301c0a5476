/**
 * Direct HTTP to the deployment and the local gateway's admin API, for the fs host tests: changes
 * "behind the editor's back", another user's files, fault switches and request counts.
 */
import type { GatewayInfo } from '../support/target';

export async function tokenFor(tokenUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!res.ok) throw new Error(`token for ${clientId}: HTTP ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function directUpload(url: string, token: string, system: string, dir: string, name: string, data: Uint8Array): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([data]), name);
  const res = await fetch(`${url}/filesystem/${system}/ops/upload?path=${encodeURIComponent(dir)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (!res.ok) throw new Error(`upload ${dir}/${name}: HTTP ${res.status} ${await res.text()}`);
}

function admin(gw: GatewayInfo | undefined): { base: string; headers: Record<string, string> } | undefined {
  if (!gw?.admin || !gw.adminToken) return undefined;
  return { base: gw.admin.replace(/\/+$/, ''), headers: { authorization: `Bearer ${gw.adminToken}` } };
}

export async function setFault(gw: GatewayInfo | undefined, fault: unknown): Promise<void> {
  const a = admin(gw);
  if (!a) throw new Error('fault switches need the local gateway');
  const res = await fetch(`${a.base}/faults`, { method: 'PUT', headers: { ...a.headers, 'content-type': 'application/json' }, body: JSON.stringify(fault) });
  if (!res.ok) throw new Error(`PUT faults: HTTP ${res.status} ${await res.text()}`);
}

export async function clearFaults(gw: GatewayInfo | undefined): Promise<void> {
  const a = admin(gw);
  if (a) await fetch(`${a.base}/faults`, { method: 'DELETE', headers: a.headers });
}

/** Request counters of the local gateway; undefined against a real deployment. */
export function statsOf(gw: GatewayInfo | undefined): { reset(): Promise<void>; count(route: RegExp): Promise<number> } | undefined {
  const a = admin(gw);
  if (!a) return undefined;
  return {
    reset: async () => {
      await fetch(`${a.base}/stats/reset`, { method: 'POST', headers: a.headers });
    },
    count: async (route) => {
      const s = (await (await fetch(`${a.base}/stats`, { headers: a.headers })).json()) as { byRoute: Record<string, number> };
      return Object.entries(s.byRoute).filter(([k]) => route.test(k)).reduce((n, [, v]) => n + v, 0);
    },
  };
}
