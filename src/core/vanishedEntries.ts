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
  const named = [...e.message.matchAll(/cannot access '([^']+)'/g)].map((m) => m[1]);
  const base = dir.replace(/\/+$/, '');
  return named.length > 0 && named.every((p) => p.startsWith(`${base}/`));
}

/** `list()` of folder `dir`, looked at again (up to 4 times in all) while entries vanish under it. */
export async function listingSettled<T>(list: () => Promise<T>, dir: string, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await list();
    } catch (e) {
      if (attempt >= 4 || !vanishedWhileListed(e, dir)) throw e;
      // Whatever removes entries may go on a moment (a job cleaning up): let it settle a little.
      await sleep(100 * attempt, signal);
    }
  }
}
