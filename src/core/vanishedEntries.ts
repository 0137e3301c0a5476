/**
 * `ls` on a server fails as a whole when an entry disappears between reading the folder and looking
 * at that entry ("cannot access '<child>'", e.g. a transfer job's log removed meanwhile): v2 and v1
 * servers alike. A second look lists the folder without it.
 */
import { CancelledError, FirecrestError } from './errors';
import { sleep } from './http/sleep';

/** Whether `e` is that failure: every path it names lies below the folder asked for. */
function vanishedWhileListed(e: unknown, dir: string): boolean {
  if (!(e instanceof FirecrestError) || e instanceof CancelledError) return false;
  // The server's own text: the message, or (put in words) its causedBy.
  const said = [e.message, ...(e.causedBy ?? [])].join('\n');
  const named = [...said.matchAll(/cannot access '([^']+)'/g)].map((m) => m[1]);
  const base = dir.replace(/\/+$/, '');
  return named.length > 0 && named.every((p) => p.startsWith(`${base}/`));
}

/** How long a listing is looked at again while entries keep vanishing under it. */
const SETTLE_MS = 15_000;

/**
 * `list()` of folder `dir`, looked at again while entries vanish under it: after 0.1, 0.2, 0.4,
 * 0.8, then every 1 s, for up to 15 s. On a loaded server one `ls` of a big folder can take longer
 * than a job needs to remove the next file (CI40: four looks in 0.6 s all failed), so the budget
 * is time, not a count.
 */
export async function listingSettled<T>(list: () => Promise<T>, dir: string, signal?: AbortSignal, now: () => number = Date.now): Promise<T> {
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (e) {
      if (!vanishedWhileListed(e, dir) || now() - started > SETTLE_MS) throw e;
      // Whatever removes entries may go on a moment (a job cleaning up): let it settle a little.
      await sleep(Math.min(1000, 100 * 2 ** (attempt - 1)), signal);
    }
  }
}
