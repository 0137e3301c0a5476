/**
 * uid/gid -> name, as `ls -l` shows owners. `find -printf %u` looks every entry up again (about 3x
 * the time of `ls` for 10,000 entries), so listings print numbers and the gateway resolves each
 * distinct id once through `getent`, keeping the answers for a minute. Unknown ids stay numeric, as
 * in `ls`.
 */
import { execFile } from 'node:child_process';
import { systemEnv, systemProgram } from '../exec';

const TTL_MS = 60_000;

type Db = 'passwd' | 'group';

interface Cached {
  name: string;
  until: number;
}

function getent(db: Db, ids: string[]): Promise<string> {
  // Exit status 2 only says that some keys were not found; the others are still printed.
  return new Promise((resolve) => {
    execFile(systemProgram('getent'), [db, ...ids], { encoding: 'utf8', timeout: 5000, env: systemEnv() }, (_err, stdout) => resolve(stdout ?? ''));
  });
}

/** Resolves numeric owners and groups to names with a short-lived cache. */
export class IdNames {
  private readonly cache: Record<Db, Map<string, Cached>> = { passwd: new Map(), group: new Map() };

  /** The names of `ids` in `db` (ids not found map to themselves). */
  async resolve(db: Db, ids: Iterable<string>): Promise<Map<string, string>> {
    const now = Date.now();
    const cache = this.cache[db];
    const out = new Map<string, string>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const hit = cache.get(id);
      if (hit && hit.until > now) out.set(id, hit.name);
      else if (/^\d+$/.test(id)) missing.push(id);
      else out.set(id, id);
    }
    if (missing.length > 0) {
      const found = new Map<string, string>();
      for (const line of (await getent(db, missing)).split('\n')) {
        const f = line.split(':');
        if (f.length >= 3) found.set(f[2], f[0]);
      }
      for (const id of missing) {
        const name = found.get(id) ?? id;
        cache.set(id, { name, until: now + TTL_MS });
        out.set(id, name);
      }
    }
    return out;
  }
}
