/**
 * A minimal `/openapi.json`, as FastAPI serves without authentication: clients and tools read the
 * server version from `info.version`; the paths are the registered routes (no schemas).
 */
import type { RouteIndex } from './route-index';

export function openApiDocument(index: RouteIndex, prefix: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, { responses: Record<string, never> }>> = {};
  for (const r of index.routes()) {
    if (!r.url.startsWith(`${prefix}/`) || r.url === `${prefix}/openapi.json`) continue;
    const path = r.url.slice(prefix.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const m of r.methods) {
      if (m === 'HEAD') continue;
      (paths[path] ??= {})[m.toLowerCase()] = { responses: {} };
    }
  }
  return { openapi: '3.1.0', info: { title: 'FirecREST', version }, paths };
}
