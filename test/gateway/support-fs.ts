/**
 * Helpers for the filesystem suites: ops calls as either user, multipart upload, raw download, a
 * scratch directory per suite under the user's default work dir, job polling, and a tiny tar writer
 * to build large directories in one request. Works against the local gateway and a real deployment.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { api, gw, sleep, t, toReply, token, workDir, type CallOptions, type Reply } from './support';

/** The v2 `File` object as the suites read it. */
export interface WireFile {
  name: string;
  type: string;
  linkTarget: string | null;
  user: string;
  group: string;
  permissions: string;
  lastModified: string;
  size: string;
}

export const fsBase = `/filesystem/${t.system}`;

/** The Authorization header of the gateway's second user (bob); gateway only. */
export async function otherUserAuth(): Promise<string> {
  const g = gw();
  const other = (g.clients ?? []).find((c) => c.user !== g.user);
  if (!other) throw new Error('the gateway has no second client');
  return `Bearer ${await token(other.clientId, other.clientSecret)}`;
}

/** `<v2>/filesystem/<system>/ops/<route>`. */
export function ops(route: string, opts: CallOptions = {}): Promise<Reply> {
  return api(`${fsBase}/ops/${route}`, opts);
}

export function transfer(route: string, opts: CallOptions = {}): Promise<Reply> {
  return api(`${fsBase}/transfer/${route}`, opts);
}

async function authHeader(auth?: string): Promise<string> {
  return auth ?? `Bearer ${await token()}`;
}

/** ops/upload of `bytes` as `<dir>/<name>` (multipart part `file`). */
export async function upload(dir: string, name: string, bytes: Uint8Array, auth?: string): Promise<Reply> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
  const res = await fetch(`${t.url}${fsBase}/ops/upload?${new URLSearchParams({ path: dir }).toString()}`, {
    method: 'POST',
    headers: { authorization: await authHeader(auth) },
    body: form,
  });
  return toReply(res);
}

/** ops/download: the raw bytes on 200, the parsed error otherwise. */
export async function download(path: string, auth?: string): Promise<{ status: number; type: string | null; bytes: Buffer; reply?: Reply }> {
  const res = await fetch(`${t.url}${fsBase}/ops/download?${new URLSearchParams({ path }).toString()}`, {
    headers: { authorization: await authHeader(auth) },
  });
  if (res.status !== 200) return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.alloc(0), reply: await toReply(res) };
  return { status: 200, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A fresh directory for one suite under the user's default work dir; `remove` deletes it. */
export async function scratchDir(label: string, auth?: string): Promise<{ path: string; remove: () => Promise<void> }> {
  let base = await workDir();
  if (auth) {
    // The other user's default work dir sits next to ours: `<file system>/<name>`.
    const name = String((await api(`/status/${t.system}/userinfo`, { auth })).body.user.name);
    base = `${base.slice(0, base.lastIndexOf('/'))}/${name}`;
  }
  const path = `${base}/f7t-test-${label}-${randomUUID().slice(0, 8)}`;
  const r = await ops('mkdir', { method: 'POST', json: { path, parent: true }, auth });
  if (r.status !== 201) throw new Error(`cannot create ${path}: ${r.status} ${r.text}`);
  return { path, remove: async () => { await ops('rm', { method: 'DELETE', query: { path }, auth }); } };
}

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'OUT_OF_MEMORY', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE'];

/** Polls the job until a final state (a 404 right after submission is tolerated); returns the state. */
export async function waitForJob(jobId: string, timeoutMs = 60_000): Promise<string> {
  const started = Date.now();
  let delay = 200;
  for (;;) {
    const r = await api(`/compute/${t.system}/jobs/${jobId}`);
    if (r.status === 200) {
      const raw = r.body.jobs[0].status.state as string | string[];
      const state = Array.isArray(raw) ? raw.join(',') : raw;
      if (FINAL.some((f) => state.startsWith(f))) return state;
    } else if (r.status !== 404 || Date.now() - started > 20_000) {
      throw new Error(`job ${jobId}: ${r.status} ${r.text}`);
    }
    if (Date.now() - started > timeoutMs) throw new Error(`job ${jobId} not finished after ${timeoutMs} ms`);
    await sleep(delay);
    delay = Math.min(delay * 2, 2000);
  }
}

/** The text of a (log) file through ops/view; '' when it does not exist. */
export async function viewText(path: string): Promise<string> {
  const r = await ops('view', { query: { path } });
  return r.status === 200 ? (r.body.output as string) : '';
}

/** `max_ops_file_size` of the target system (default 5 MiB when not advertised). */
export async function maxOpsFileSize(): Promise<number> {
  const r = await api('/status/systems');
  const sys = (r.body.systems as { name: string; dataOperation?: { max_ops_file_size?: number } }[]).find((s) => s.name === t.system);
  return Number(sys?.dataOperation?.max_ops_file_size ?? 5242880);
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/** A gzipped ustar archive of empty regular files (names up to 100 bytes). */
export function tarGzOfEmptyFiles(names: string[]): Buffer {
  const blocks: Buffer[] = [];
  for (const name of names) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write(octal(0o644, 8), 100, 'ascii');
    h.write(octal(0, 8), 108, 'ascii');
    h.write(octal(0, 8), 116, 'ascii');
    h.write(octal(0, 12), 124, 'ascii');
    h.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'ascii');
    h.write('        ', 148, 'ascii');
    h.write('0', 156, 'ascii');
    h.write('ustar\0', 257, 'ascii');
    h.write('00', 263, 'ascii');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(octal(sum, 7) + ' ', 148, 'ascii');
    blocks.push(h);
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
