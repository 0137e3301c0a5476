/**
 * Sweeps the staging store: what nobody can reach any more is removed. Presigned URLs live
 * `stagingTtlSeconds`, so a multipart upload is dead `ttl` after it was opened (its part and
 * completion URLs were signed then), and an object is dead `ttl` after it was written (the URLs
 * that read it were signed before it existed). Temporary files of broken writes go the same way.
 * The sweep runs every `ttl / 2` (between 1 s and 60 s), the lifetime read from the live settings.
 */
import { readdir, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface SweepResult {
  uploads: number;
  objects: number;
  temps: number;
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function mtime(path: string): Promise<number | undefined> {
  return stat(path).then((s) => s.mtimeMs, () => undefined);
}

/** Removes expired objects below `dir`, then the folders left empty; resolves how many went. */
async function sweepObjects(dir: string, deadline: number, isRoot: boolean): Promise<number> {
  let removed = 0;
  for (const name of await names(dir)) {
    const path = join(dir, name);
    const s = await stat(path).catch(() => undefined);
    if (!s) continue;
    if (s.isDirectory()) removed += await sweepObjects(path, deadline, false);
    else if (s.mtimeMs < deadline) {
      await rm(path, { force: true });
      removed++;
    }
  }
  // A bucket or task folder left empty goes too (rmdir refuses a folder a writer just filled).
  if (!isRoot && (await names(dir)).length === 0) await rmdir(dir).catch(() => undefined);
  return removed;
}

/** Periodic removal of expired staging data under `<stateDir>/staging`. */
export class StagingSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private busy = false;

  constructor(
    private readonly root: string,
    private readonly ttlSeconds: () => number,
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {}

  /** One pass: uploads opened, objects and temporary files written more than `ttl` before `now`. */
  async sweep(now = Date.now()): Promise<SweepResult> {
    const deadline = now - this.ttlSeconds() * 1000;
    const result: SweepResult = { uploads: 0, objects: 0, temps: 0 };
    const multipart = join(this.root, 'multipart');
    for (const id of await names(multipart)) {
      const dir = join(multipart, id);
      const created = await readFile(join(dir, 'upload.json'), 'utf8').then((t) => Number((JSON.parse(t) as { created?: unknown }).created), () => undefined);
      const opened = Number.isFinite(created) ? created : await mtime(dir);
      if (opened !== undefined && opened < deadline) {
        await rm(dir, { recursive: true, force: true });
        result.uploads++;
      }
    }
    result.objects = await sweepObjects(join(this.root, 'objects'), deadline, true);
    for (const name of await names(join(this.root, 'tmp'))) {
      const path = join(this.root, 'tmp', name);
      const m = await mtime(path);
      if (m !== undefined && m < deadline) {
        await rm(path, { force: true });
        result.temps++;
      }
    }
    return result;
  }

  /**
   * What a gateway killed mid-write left behind: every temporary object file and every half-written
   * part record (`.part-<n>.<random>` in an upload's folder; a part's bytes sit in the upload's data
   * file and count only once their record is there). Run once at start, before this process writes any.
   */
  async sweepLeftovers(): Promise<number> {
    let removed = 0;
    for (const name of await names(join(this.root, 'tmp'))) {
      await rm(join(this.root, 'tmp', name), { force: true });
      removed++;
    }
    const multipart = join(this.root, 'multipart');
    for (const id of await names(multipart)) {
      for (const name of await names(join(multipart, id))) {
        if (!name.startsWith('.')) continue;
        await rm(join(multipart, id, name), { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Starts sweeping in the background (the timer never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    let last = Date.now();
    // A one-second tick that sweeps only when due: a lifetime shortened at run time applies at once.
    this.timer = setInterval(() => {
      const every = Math.min(60_000, Math.max(1000, (this.ttlSeconds() * 1000) / 2));
      if (this.busy || Date.now() - last < every) return;
      last = Date.now();
      this.busy = true;
      this.running = this.sweep().catch(this.onError).finally(() => {
        this.busy = false;
      });
    }, 1000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
