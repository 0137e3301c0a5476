/**
 * Every registered route as a regex, so a 404 can tell "no such path" from "wrong method" (405 with
 * `Allow`) and from "same path with/without a trailing slash" (307, like Starlette's redirect_slashes).
 */
import type { RouteOptions } from 'fastify';

interface Entry {
  re: RegExp;
  methods: Set<string>;
}

export class RouteIndex {
  private readonly entries = new Map<string, Entry>();

  /** Feed from an `onRoute` hook. */
  add(route: RouteOptions): void {
    const url = route.url;
    if (!url) return;
    let entry = this.entries.get(url);
    if (!entry) {
      const pattern = url
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      entry = { re: new RegExp(`^${pattern}$`), methods: new Set() };
      this.entries.set(url, entry);
    }
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m.toUpperCase());
  }

  /** Every route template (Fastify syntax, e.g. `/v2/status/:system/nodes`) with its methods. */
  routes(): { url: string; methods: string[] }[] {
    return [...this.entries].map(([url, e]) => ({ url, methods: [...e.methods] }));
  }

  /** Methods some route accepts for this concrete path (empty: no route has this path). */
  methodsFor(path: string): string[] {
    const out = new Set<string>();
    for (const e of this.entries.values()) if (e.re.test(path)) e.methods.forEach((m) => out.add(m));
    return [...out];
  }
}
