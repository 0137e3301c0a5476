/**
 * Direct HTTP to the deployment and the local gateway's admin API, for the fs host tests: changes
 * "behind the editor's back", another user's files, fault switches and request counts.
 */
import type { GatewayInfo, Target } from '../support/target';

export async function tokenFor(tokenUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!res.ok) throw new Error(`token for ${clientId}: HTTP ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Calls on the deployment as some user, outside the extension, in the target's API generation. */
export interface DirectOps {
  upload(dir: string, name: string, data: Uint8Array): Promise<void>;
  chmod(path: string, mode: string): Promise<void>;
  rm(path: string): Promise<void>;
}

async function ok(what: string, res: Response): Promise<void> {
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
}

export function directOps(t: Target, token: string): DirectOps {
  const auth = { authorization: `Bearer ${token}` };
  if (t.apiVersion === 'v1') {
    const v1 = { ...auth, 'x-machine-name': t.system };
    const form = (fields: Record<string, string>) => new URLSearchParams(fields);
    return {
      async upload(dir, name, data) {
        const f = new FormData();
        f.append('targetPath', dir);
        f.append('file', new Blob([data]), name);
        await ok(`upload ${dir}/${name}`, await fetch(`${t.url}/utilities/upload`, { method: 'POST', headers: v1, body: f }));
      },
      async chmod(path, mode) {
        await ok(`chmod ${path}`, await fetch(`${t.url}/utilities/chmod`, { method: 'PUT', headers: v1, body: form({ targetPath: path, mode }) }));
      },
      async rm(path) {
        await ok(`rm ${path}`, await fetch(`${t.url}/utilities/rm`, { method: 'DELETE', headers: v1, body: form({ targetPath: path }) }));
      },
    };
  }
  const ops = `${t.url}/filesystem/${t.system}/ops`;
  return {
    async upload(dir, name, data) {
      const f = new FormData();
      f.append('file', new Blob([data]), name);
      await ok(`upload ${dir}/${name}`, await fetch(`${ops}/upload?path=${encodeURIComponent(dir)}`, { method: 'POST', headers: auth, body: f }));
    },
    async chmod(path, mode) {
      await ok(`chmod ${path}`, await fetch(`${ops}/chmod`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ path, mode }) }));
    },
    async rm(path) {
      await ok(`rm ${path}`, await fetch(`${ops}/rm?path=${encodeURIComponent(path)}`, { method: 'DELETE', headers: auth }));
    },
  };
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
