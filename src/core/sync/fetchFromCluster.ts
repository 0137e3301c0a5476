/**
 * Fetch from Cluster: remote files that are newer on the cluster or missing here, within the
 * `include` patterns (gitignore syntax: `results/`, `*.out`), brought into the local folder.
 * - Many small files come as ONE archive: compressed on the cluster with a match pattern naming
 *   exactly them (API v2), one download, unpacked here. API v1 has no match pattern: they come
 *   one by one.
 * - Large files come staged (resume, SHA-256 check).
 * - A local file changed since the last sync is never overwritten silently: a conflict, unless
 *   the user keeps the cluster's side.
 * Every file is written to a temporary name beside it and renamed over: a cut-off fetch leaves the
 * old file or the new one, never half of one.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import ignore from 'ignore';
import { Parser, type ReadEntry } from 'tar';
import type { FirecrestClient } from '../client';
import { MalformedResponseError } from '../errors';
import { LocalPathRefusedError, localPathOf, writablePathOf } from './localTree';
import { emptyManifest, type Manifest, type PlanItem, type RemoteFile } from './plan';
import { FETCH_ARCHIVE_NAME, listRemote, targetKey, type SyncOptions, type SyncTarget } from './syncToCluster';

export interface FetchOptions extends SyncOptions {
  /** gitignore-style patterns of what to bring back; empty: everything. */
  include?: string[];
}

export interface FetchPlan {
  /** Missing here, or newer on the cluster and unchanged here since the last sync. */
  download: PlanItem[];
  /** Changed on both sides: left alone unless the user keeps the cluster's side. */
  conflicts: PlanItem[];
  unchanged: number;
  bytes: number;
}

/** A local file as the preview saw it; `null` when it was not there. */
export type LocalSeen = { size: number; mtimeMs: number } | null;

export interface FetchPreview {
  target: SyncTarget;
  plan: FetchPlan;
  remote: Map<string, RemoteFile>;
  manifest: Manifest;
  /** The local side of every planned file as the preview saw it: the run writes only over that. */
  local: Map<string, LocalSeen>;
}

export interface FetchResult {
  fetched: string[];
  bytes: number;
  /**
   * Not written, with why: changed here since the preview (a conflict now: the next fetch asks
   * again), a folder on the way that leads outside, or not in the archive as listed.
   */
  skipped: { rel: string; why: string }[];
}

/** What a fetch says of a local file that changed between the preview and the write. */
export const CHANGED_SINCE_PREVIEW = 'changed here since the preview: kept, and a conflict for the next fetch';

async function localState(path: string): Promise<LocalSeen> {
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: Math.floor(s.mtimeMs) } : null;
  } catch {
    return null;
  }
}

const sameSeen = (a: LocalSeen, b: LocalSeen): boolean => (a === null ? b === null : b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs);

export async function previewFetch(client: FirecrestClient, t: SyncTarget, o: FetchOptions): Promise<FetchPreview> {
  const [stored, listed] = await Promise.all([o.store.load(), listRemote(client, t, o.signal)]);
  const manifest = stored?.target === targetKey(t) ? stored : emptyManifest(targetKey(t));
  const wanted = o.include?.length ? ignore().add(o.include) : undefined;
  const plan: FetchPlan = { download: [], conflicts: [], unchanged: 0, bytes: 0 };
  const local = new Map<string, LocalSeen>();
  for (const r of listed.files.values()) {
    if (r.kind !== 'file') continue;
    if (wanted && !wanted.ignores(r.rel)) continue;
    const m = manifest.files[r.rel];
    const l = await localState(localPathOf(t.localRoot, r.rel));
    const item = { rel: r.rel, size: r.size };
    const remoteNew = !m || m.remoteSize !== r.size || Math.floor(m.remoteMtime / 1000) !== Math.floor(r.mtime / 1000);
    if (l && !remoteNew) {
      plan.unchanged++;
      continue;
    }
    local.set(r.rel, l);
    if (!l) plan.download.push(item);
    else if (!m || m.size !== l.size || m.mtimeMs !== l.mtimeMs) plan.conflicts.push(item);
    else plan.download.push(item);
  }
  plan.bytes = plan.download.reduce((s, i) => s + i.size, 0);
  return { target: t, plan, remote: listed.files, manifest, local };
}

/** An Emacs regular expression (find's default) matching exactly `./<base>/<rel>` for each file. */
function exactPaths(base: string, rels: string[]): string {
  const esc = (s: string) => s.replace(/[.*+?[\]^$\\]/g, (c) => `\\${c}`);
  return `\\./${esc(base)}/\\(${rels.map(esc).join('\\|')}\\)`;
}

let temps = 0;
/** A temporary name beside `path`, in the same folder, so that the rename over it is atomic. */
const tempBeside = (path: string): string => `${path}.f7t-${process.pid}-${Date.now()}-${++temps}.part`;

/** Bytes of members nobody asked for that an archive may hold before it is refused (headers of folders are none). */
const UNWANTED_SLACK = 1024 * 1024;

/**
 * Streams the members of a fetched archive that were asked for (`wanted`: member name -> size the
 * listing gave) to `take`, one at a time, never whole into memory. Any other member (not asked
 * for, of another size or type, or a second copy) is passed over without a byte written. An
 * archive whose unasked-for members add up to more than the asked-for bytes (plus a little) is
 * refused with MalformedResponseError as soon as a header says so, before its body is
 * decompressed: a decompression bomb costs the time of its first header. A damaged archive is
 * refused with tar's or gzip's own error.
 */
export async function unpackWanted(file: string, wanted: ReadonlyMap<string, number>, take: (name: string, entry: ReadEntry) => Promise<void>): Promise<void> {
  const source = createReadStream(file);
  const parser = new Parser({ strict: true });
  const allowance = [...wanted.values()].reduce((a, b) => a + b, 0) + UNWANTED_SLACK;
  let unwanted = 0;
  const taken = new Set<string>();
  let failure: Error | undefined;
  const fail = (e: unknown): void => { failure ??= e instanceof Error ? e : new Error(String(e)); };
  let chain = Promise.resolve();
  parser.on('entry', (entry: ReadEntry) => {
    const name = entry.path.replace(/^(\.\/)+/, '');
    const size = wanted.get(name);
    if (failure === undefined && entry.type === 'File' && size === entry.size && !taken.has(name)) {
      taken.add(name);
      const done = take(name, entry).catch((e: unknown) => {
        fail(e);
        entry.resume();
      });
      chain = chain.then(() => done);
      return;
    }
    unwanted += entry.size ?? 0;
    if (unwanted > allowance && failure === undefined) {
      failure = new MalformedResponseError(`The fetched archive holds more than was asked for (over ${unwanted} bytes of other members): nothing more of it was unpacked`);
      source.destroy(failure);
    }
    entry.resume();
  });
  try {
    await pipeline(source, parser);
  } catch (e) {
    fail(e);
  }
  await chain;
  if (failure !== undefined) throw failure;
}

// eslint-disable-next-line max-lines-per-function -- one sequence (pack on the cluster, download, verify, unpack into place, update the manifest) around one archive and one cleanup
export async function runFetch(client: FirecrestClient, preview: FetchPreview, o: FetchOptions & { keepRemote?: string[] }): Promise<FetchResult> {
  const { target: t, plan, remote, manifest } = preview;
  const keep = new Set(o.keepRemote ?? []);
  const items = [...plan.download, ...plan.conflicts.filter((c) => keep.has(c.rel))];
  const result: FetchResult = { fetched: [], bytes: 0, skipped: [] };
  if (items.length === 0) return result;
  const limit = o.smallFileLimit ?? 1024 * 1024;
  const direct = o.directLimit ?? (await client.systems({ signal: o.signal })).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 0;
  const small = items.filter((i) => i.size <= limit);
  const large = items.filter((i) => i.size > limit);

  /**
   * Where `rel` goes, or undefined (with the reason in `skipped`) when it must not be written: a
   * folder on the way leads outside, or the local file changed since the preview.
   */
  const destination = async (rel: string): Promise<string | undefined> => {
    let path: string;
    try {
      path = await writablePathOf(t.localRoot, rel);
    } catch (e) {
      if (!(e instanceof LocalPathRefusedError)) throw e;
      result.skipped.push({ rel, why: e.message });
      return undefined;
    }
    return (await unchangedSincePreview(rel, path)) ? path : undefined;
  };
  const unchangedSincePreview = async (rel: string, path: string): Promise<boolean> => {
    if (sameSeen(preview.local.get(rel) ?? null, await localState(path))) return true;
    result.skipped.push({ rel, why: CHANGED_SINCE_PREVIEW });
    return false;
  };
  /** Puts the complete `temp` in place of `path`, looking at the local file once more right before. */
  const land = async (rel: string, path: string, temp: string): Promise<void> => {
    if (!(await unchangedSincePreview(rel, path))) {
      await rm(temp, { force: true });
      return;
    }
    await rename(temp, path);
    const l = await localState(path);
    const r = remote.get(rel);
    if (!l || !r) return;
    manifest.files[rel] = { size: l.size, mtimeMs: l.mtimeMs, kind: 'file', remoteSize: r.size, remoteMtime: r.mtime };
    result.fetched.push(rel);
    result.bytes += l.size;
  };
  /** Writes `data` (or a stream of it) for `rel` through a temporary name beside it. */
  const write = async (rel: string, data: Uint8Array | ReadEntry, known?: string): Promise<void> => {
    const path = known ?? await destination(rel);
    if (path === undefined) {
      if (!(data instanceof Uint8Array)) data.resume();
      return;
    }
    const temp = tempBeside(path);
    try {
      if (data instanceof Uint8Array) await writeFile(temp, data, { flag: 'wx' });
      else await pipeline(data, createWriteStream(temp, { flags: 'wx' }));
      await land(rel, path, temp);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  };

  if (small.length > 3 && client.apiVersion === 'v2') {
    o.onProgress?.({ message: `packing ${small.length} file(s) on the cluster` });
    const archive = posix.join(t.remoteRoot, FETCH_ARCHIVE_NAME);
    const base = posix.basename(t.remoteRoot);
    await client.compress(t.system, t.remoteRoot, archive, { compression: 'gzip', matchPattern: exactPaths(base, small.map((i) => i.rel)), signal: o.signal });
    const work = await mkdtemp(join(tmpdir(), 'f7t-fetch-'));
    try {
      const file = join(work, 'fetch.tar.gz');
      const size = small.reduce((s, i) => s + i.size, 0);
      if (size <= direct) await writeFile(file, await client.downloadSmall(t.system, archive, { signal: o.signal }));
      else await client.transfers.downloadFile(t.system, archive, file, { signal: o.signal });
      await client.remove(t.system, archive, { signal: o.signal }).catch(() => undefined);
      const byMember = new Map(small.map((i) => [`${base}/${i.rel}`, i]));
      await unpackWanted(file, new Map(small.map((i) => [`${base}/${i.rel}`, i.size])), async (name, entry) => {
        const item = byMember.get(name);
        if (item) await write(item.rel, entry);
      });
      const fetched = new Set(result.fetched);
      const skipped = new Set(result.skipped.map((x) => x.rel));
      for (const i of small) if (!fetched.has(i.rel) && !skipped.has(i.rel)) result.skipped.push({ rel: i.rel, why: 'not in the archive as listed (changed on the cluster meanwhile?): fetched next time' });
    } finally {
      // Only the downloaded archive is in here: nothing of the archive was unpacked into it.
      await rm(work, { recursive: true, force: true }).catch(() => undefined);
    }
  } else {
    for (const i of small) {
      // Looked at before the download (a file that will not be written is not fetched); looked at
      // once more right before the rename (`land`).
      const path = await destination(i.rel);
      if (path === undefined) continue;
      await write(i.rel, await client.downloadSmall(t.system, posix.join(t.remoteRoot, i.rel), { signal: o.signal }), path);
    }
  }
  for (const i of large) {
    o.onProgress?.({ message: `bringing ${i.rel}` });
    const path = await destination(i.rel);
    if (path === undefined) continue;
    // Complete and verified under a name of its own, then put in place if the local file is still
    // as the preview saw it.
    const temp = tempBeside(path);
    try {
      await client.transfers.downloadFile(t.system, posix.join(t.remoteRoot, i.rel), temp, { signal: o.signal });
      await land(i.rel, path, temp);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }
  await o.store.save(manifest);
  return result;
}
