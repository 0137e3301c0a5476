/**
 * Helpers for the v1 suites: raw v1 calls over real HTTP (query, urlencoded or multipart form, the
 * `X-Machine-Name` header), task polling, and a scratch folder per suite in the user's home. Runs
 * against the local gateway (`with-gateway.mjs --api v1`) or a real v1 deployment (FIRECREST_URL).
 */
import { randomUUID } from 'node:crypto';
import { sleep, t, toReply, token, type Json, type Reply } from './support';

export interface V1Options {
  method?: string;
  query?: Record<string, string>;
  form?: Record<string, string>;
  /** Multipart fields; a `Blob` value with `filename` becomes a file part. */
  multipart?: Record<string, string | { blob: Blob; filename: string }>;
  /** `null` = no X-Machine-Name; default the target's system. */
  machine?: string | null;
  /** `null` = no Authorization header; a string = that exact value. */
  auth?: string | null;
  headers?: Record<string, string>;
}

export async function v1(path: string, opts: V1Options = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth === undefined) headers.authorization = `Bearer ${await token()}`;
  else if (opts.auth !== null) headers.authorization = opts.auth;
  if (opts.machine !== null) headers['x-machine-name'] = opts.machine ?? t.system;
  let body: string | FormData | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.multipart) {
    const fd = new FormData();
    for (const [k, v] of Object.entries(opts.multipart)) {
      if (typeof v === 'string') fd.append(k, v);
      else fd.append(k, v.blob, v.filename);
    }
    body = fd;
  }
  const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : '';
  return toReply(await fetch(`${t.url}${path}${qs}`, { method: opts.method ?? 'GET', headers, body }));
}

/** Polls `GET /tasks?tasks=<id>` (as pyfirecrest does) until `done(status)`; returns the task. */
export async function waitTask(id: string, done: (status: string) => boolean = (s) => s >= '200' || ['114', '115', '117', '118'].includes(s), timeoutMs = 60_000, auth?: string): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await v1('/tasks', { query: { tasks: id }, machine: null, auth });
    if (r.status !== 200) throw new Error(`GET /tasks answered ${r.status} ${r.text}`);
    const task = r.body.tasks[id];
    if (task && done(task.status as string)) return task;
    if (Date.now() > until) throw new Error(`task ${id} still at ${task?.status as string} after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Starts an asynchronous call (expects `status`), then waits for its task. */
export async function taskOf(path: string, opts: V1Options = {}, status = 200): Promise<Json> {
  const r = await v1(path, opts);
  if (r.status !== status) throw new Error(`${path} answered ${r.status} ${r.text}`);
  return waitTask(r.body.task_id as string);
}

/** The caller's user name (whoami). */
export async function whoami(): Promise<string> {
  return (await v1('/utilities/whoami')).body.output as string;
}

/** A fresh folder `<first mounted fs>/<user>/v1-<tag>-<uuid>` and a way to remove it. */
export async function scratch(tag: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const params = await v1('/status/parameters', { machine: null });
  const fsEntry = (params.body.out.storage as Json[]).find((e) => e.name === 'FILESYSTEMS');
  const mounted = (fsEntry.value as Json[]).find((s) => s.system === t.system)?.mounted as string[];
  const path = `${mounted[0].replace(/\/$/, '')}/${await whoami()}/v1-${tag}-${randomUUID().slice(0, 8)}`;
  const r = await v1('/utilities/mkdir', { method: 'POST', form: { targetPath: path, p: 'true' } });
  if (r.status !== 201) throw new Error(`mkdir ${path}: ${r.status} ${r.text}`);
  return { path, remove: async () => { await v1('/utilities/rm', { method: 'DELETE', form: { targetPath: path } }); } };
}

/** utilities/upload of `content` as `<dir>/<name>`. */
export function uploadFile(dir: string, name: string, content: string | Uint8Array, auth?: string): Promise<Reply> {
  return v1('/utilities/upload', { method: 'POST', auth, multipart: { targetPath: dir, file: { blob: new Blob([content]), filename: name } } });
}
