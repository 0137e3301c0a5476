/**
 * Direct HTTP to the deployment and the local gateway's admin API, for the fs host tests: changes
 * "behind the editor's back", another user's files, fault switches and request counts.
 */
import * as vscode from 'vscode';
import type { GatewayInfo, Target } from '../support/target';
import { waitFor } from './support/extension';

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
  /** The cluster user the token is for. */
  whoami(): Promise<string>;
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
      async whoami() {
        const res = await fetch(`${t.url}/utilities/whoami`, { headers: v1 });
        await ok('whoami', res.clone());
        return ((await res.json()) as { output: string }).output;
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
    async whoami() {
      const res = await fetch(`${t.url}/status/${t.system}/userinfo`, { headers: auth });
      await ok('userinfo', res.clone());
      return ((await res.json()) as { user: { name: string } }).user.name;
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

/** Changes the local gateway's settings (e.g. `maxPartSize`); nothing against a real deployment. */
export async function setSettings(gw: GatewayInfo | undefined, body: Record<string, number>): Promise<void> {
  const a = admin(gw);
  if (!a) return;
  const res = await fetch(`${a.base}/settings`, { method: 'PUT', headers: { ...a.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`PUT settings: HTTP ${res.status}`);
}

/** What `firecrest.files.upload` answers. */
export interface UploadSummary { files: number; bytes: number; interrupted?: { local: string; remote: string; partsDone: number; partsTotal: number } }

/**
 * Runs Upload from Local… of `file` into `folder` and breaks it: part PUTs are slowed so that the
 * first ten (the parallelism) arrive, then every later one is dropped. Resolves the command's summary
 * once it gave up (with `interrupted` when parts were kept). Needs the gateway's fault switches.
 */
export async function breakUpload(gw: GatewayInfo | undefined, folder: vscode.Uri, file: string): Promise<UploadSummary | undefined> {
  const stats = statsOf(gw);
  if (!stats) throw new Error('breaking an upload needs the local gateway');
  const latency = { rate: 1, ms: 3000, minMs: 3000, match: '^PUT /s3/' };
  await setFault(gw, { latency });
  await stats.reset();
  const running = vscode.commands.executeCommand<UploadSummary>('firecrest.files.upload', folder, { localPaths: [file], replace: true });
  await waitFor('ten part PUTs', async () => (await stats.count(/^PUT \/s3\//)) >= 10, 60_000);
  await setFault(gw, { latency, dropBefore: { next: 1000, match: '^PUT /s3/' } });
  const broken = await running;
  await clearFaults(gw);
  return broken;
}
