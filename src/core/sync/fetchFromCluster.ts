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
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import ignore from 'ignore';
import { x as extractTar } from 'tar';
import type { FirecrestClient } from '../client';
import { localPathOf } from './localTree';
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

export interface FetchPreview {
  target: SyncTarget;
  plan: FetchPlan;
  remote: Map<string, RemoteFile>;
  manifest: Manifest;
}

export interface FetchResult {
  fetched: string[];
  bytes: number;
}

async function localState(path: string): Promise<{ size: number; mtimeMs: number } | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: Math.floor(s.mtimeMs) } : undefined;
  } catch {
    return undefined;
  }
}

export async function previewFetch(client: FirecrestClient, t: SyncTarget, o: FetchOptions): Promise<FetchPreview> {
  const [stored, listed] = await Promise.all([o.store.load(), listRemote(client, t, o.signal)]);
  const manifest = stored?.target === targetKey(t) ? stored : emptyManifest(targetKey(t));
  const wanted = o.include?.length ? ignore().add(o.include) : undefined;
  const plan: FetchPlan = { download: [], conflicts: [], unchanged: 0, bytes: 0 };
  for (const r of listed.files.values()) {
    if (r.kind !== 'file') continue;
    if (wanted && !wanted.ignores(r.rel)) continue;
    const m = manifest.files[r.rel];
    const l = await localState(localPathOf(t.localRoot, r.rel));
    const item = { rel: r.rel, size: r.size };
    const remoteNew = !m || m.remoteSize !== r.size || Math.floor(m.remoteMtime / 1000) !== Math.floor(r.mtime / 1000);
    if (!l) plan.download.push(item);
    else if (!remoteNew) plan.unchanged++;
    else if (!m || m.size !== l.size || m.mtimeMs !== l.mtimeMs) plan.conflicts.push(item);
    else plan.download.push(item);
  }
  plan.bytes = plan.download.reduce((s, i) => s + i.size, 0);
  return { target: t, plan, remote: listed.files, manifest };
}

/** An Emacs regular expression (find's default) matching exactly `./<base>/<rel>` for each file. */
function exactPaths(base: string, rels: string[]): string {
  const esc = (s: string) => s.replace(/[.*+?[\]^$\\]/g, (c) => `\\${c}`);
  return `\\./${esc(base)}/\\(${rels.map(esc).join('\\|')}\\)`;
}

/** Writes `data` to `path` through a temporary name beside it. */
async function writeInPlace(path: string, data: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.f7t-${process.pid}-${Date.now()}.part`;
  await writeFile(temp, data);
  await rename(temp, path);
}

export async function runFetch(client: FirecrestClient, preview: FetchPreview, o: FetchOptions & { keepRemote?: string[] }): Promise<FetchResult> {
  const { target: t, plan, remote, manifest } = preview;
  const keep = new Set(o.keepRemote ?? []);
  const items = [...plan.download, ...plan.conflicts.filter((c) => keep.has(c.rel))];
  const result: FetchResult = { fetched: [], bytes: 0 };
  if (items.length === 0) return result;
  const limit = o.smallFileLimit ?? 1024 * 1024;
  const direct = o.directLimit ?? (await client.systems({ signal: o.signal })).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 0;
  const small = items.filter((i) => i.size <= limit);
  const large = items.filter((i) => i.size > limit);

  const landed = async (rel: string): Promise<void> => {
    const l = await localState(localPathOf(t.localRoot, rel));
    const r = remote.get(rel);
    if (!l || !r) return;
    manifest.files[rel] = { size: l.size, mtimeMs: l.mtimeMs, kind: 'file', remoteSize: r.size, remoteMtime: r.mtime };
    result.fetched.push(rel);
    result.bytes += l.size;
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
      const out = join(work, 'out');
      await mkdir(out);
      // Only regular files, only below the folder: a hostile archive cannot write elsewhere.
      await extractTar({ file, cwd: out, strict: true, filter: (_p, e) => 'type' in e && e.type === 'File' });
      for (const i of small) {
        const from = join(out, base, ...i.rel.split('/'));
        const data = await readFile(from).catch(() => undefined);
        if (!data || data.length !== i.size) continue;
        await writeInPlace(localPathOf(t.localRoot, i.rel), data);
        await landed(i.rel);
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } else {
    for (const i of small) {
      const data = await client.downloadSmall(t.system, posix.join(t.remoteRoot, i.rel), { signal: o.signal });
      await writeInPlace(localPathOf(t.localRoot, i.rel), data);
      await landed(i.rel);
    }
  }
  for (const i of large) {
    o.onProgress?.({ message: `bringing ${i.rel}` });
    const path = localPathOf(t.localRoot, i.rel);
    await mkdir(dirname(path), { recursive: true });
    // Replaced only by a complete, verified file (the transfer engine's own temporary name).
    await client.transfers.downloadFile(t.system, posix.join(t.remoteRoot, i.rel), path, { signal: o.signal });
    await landed(i.rel);
  }
  await o.store.save(manifest);
  return result;
}
