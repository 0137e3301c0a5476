/**
 * Helpers for the gateway suites: tokens, raw v2 calls over real HTTP, and the local gateway's
 * admin API (fault switches, settings, stats). Everything goes through `target()` so the suites
 * also run against a real FirecREST deployment (admin parts then skip via `gatewayOnly()`).
 */
import { target, type GatewayInfo, type Target } from '../support/target';

export const t: Target = target();

/** Parsed JSON answers: the suites assert on their shape, so they read them loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

const tokens = new Map<string, { token: string; until: number }>();

/** Requests a token by client credentials, in the body (default) or with HTTP Basic. */
export async function requestToken(clientId = t.clientId, clientSecret = t.clientSecret, basic = false): Promise<Reply> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  else {
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
  }
  return toReply(await fetch(t.tokenUrl, { method: 'POST', headers, body: form.toString() }));
}

/** A cached bearer token for a client (default: the target's own). */
export async function token(clientId = t.clientId, clientSecret = t.clientSecret): Promise<string> {
  const cached = tokens.get(clientId);
  if (cached && cached.until > Date.now()) return cached.token;
  const r = await requestToken(clientId, clientSecret);
  if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
  tokens.set(clientId, { token: r.body.access_token, until: Date.now() + (r.body.expires_in - 40) * 1000 });
  return r.body.access_token as string;
}

export async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: Json = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export interface CallOptions {
  method?: string;
  json?: unknown;
  /** `null` = send no Authorization header; a string = that exact header value. */
  auth?: string | null;
  query?: Record<string, string>;
  redirect?: 'follow' | 'manual' | 'error';
}

/** Calls `<v2 base><path>` and returns status, headers and parsed body. */
export async function api(path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.auth === undefined) headers.authorization = `Bearer ${await token()}`;
  else if (opts.auth !== null) headers.authorization = opts.auth;
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : '';
  const res = await fetch(`${t.url}${path}${qs}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
    redirect: opts.redirect ?? 'follow',
  });
  return toReply(res);
}

/** The local gateway's JSON line (only call from gateway-only tests). */
export function gw(): GatewayInfo {
  if (!t.gateway) throw new Error('not running against the local gateway');
  return t.gateway;
}

/** Calls the local gateway's admin API. */
export async function admin(method: string, path: string, json?: unknown): Promise<Reply> {
  const g = gw();
  const headers: Record<string, string> = { authorization: `Bearer ${g.adminToken ?? ''}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  return toReply(await fetch(`${g.admin}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }));
}

/** The v2 error body: every key present. */
export function isErrorBody(body: Json): boolean {
  return typeof body === 'object' && body !== null && ['errorType', 'message', 'causedBy', 'data', 'user'].every((k) => k in body);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The default work dir of the user (the file system flagged `defaultWorkDir`, plus the user name). */
export async function workDir(): Promise<string> {
  const sys = await api('/status/systems');
  const system = (sys.body.systems as Json[]).find((s) => s.name === t.system);
  const fs = (system.fileSystems as Json[]).find((f) => f.defaultWorkDir) ?? system.fileSystems[0];
  const info = await api(`/status/${t.system}/userinfo`);
  return `${String(fs.path).replace(/\/$/, '')}/${info.body.user.name as string}`;
}
