/**
 * `auto` profiles: which API generation answers at the base URL. v2 answers `GET /status/systems`
 * with `{"systems": [...]}` and an `F7T-AppVersion` header; v1 answers `{"description", "out"}`
 * and also serves `/status/parameters`.
 */
import type { CallOptions } from './api';
import { FirecrestError, MalformedResponseError, NotFoundError } from './errors';
import type { ApiHttp } from './http/apiHttp';
import type { ApiVersion } from './model';

function json(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Probes the deployment behind `http`; MalformedResponseError when neither generation answers. */
export async function detectApiVersion(http: ApiHttp, call?: CallOptions): Promise<ApiVersion> {
  const res = await http.request({ method: 'GET', route: '/status/systems', expect: [200], call });
  const body = json(res.body) as Record<string, unknown> | undefined;
  // The body decides first: a proxy or a combined deployment may add F7T-* headers to v1 answers.
  if (Array.isArray(body?.systems)) return 'v2';
  if (body && ('description' in body || 'out' in body)) return 'v1';
  if (res.headers['f7t-appversion'] !== undefined) return 'v2';
  try {
    await http.request({ method: 'GET', route: '/status/parameters', expect: [200], call });
    return 'v1';
  } catch (e) {
    if (!(e instanceof NotFoundError) && !(e instanceof FirecrestError)) throw e;
  }
  throw new MalformedResponseError('The server answered GET /status/systems, but neither like FirecREST v2 nor v1', { route: 'GET /status/systems', status: res.status });
}
