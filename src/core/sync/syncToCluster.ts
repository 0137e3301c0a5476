/**
 * Sync to Cluster: the local folder's changes, sent in as few requests as the API allows.
 * - One recursive listing of the remote folder finds what is there.
 * - Small files travel as ONE gzipped tar (./archive.ts), uploaded directly (or staged when the
 *   archive is larger than the direct limit) and unpacked by the extract operation (its transfer
 *   job when the synchronous one times out). tar keeps modes (the executable bit) and mtimes;
 *   gzip's CRC refuses a damaged archive as a whole. The preview packs the files it already knows
 *   will go while the remote folder is listed; the sync sends that archive when its plan agrees.
 * - Large files go one by one through the staged transfer engine (resume, SHA-256 check).
 * - One more listing records what landed. The manifest advances only for files whose remote size
 *   is right; what a cut-off sync was sending is marked pending first, so the next sync repairs it
 *   without calling it a conflict.
 * The archive stays as `.f7t-sync.tar.gz` in the remote folder (replaced by the next sync, never
 * synced itself): deleting it would cost every sync one more request.
 */
import { posix } from 'node:path';
import type { FirecrestClient } from '../client';
import { NotFoundError } from '../errors';
import type { FileEntry } from '../model';
import { ArchiveBuilder, archiveOf } from './archive';
import { localPathOf, scanLocal, type LocalFile, type LocalScan, type ScanOptions } from './localTree';
import { changedLocally, emptyManifest, planSync, type Manifest, type RemoteFile, type SyncPlan } from './plan';

export const ARCHIVE_NAME = '.f7t-sync.tar.gz';
/** Where Fetch from Cluster packs what it brings back (removed after the download). */
export const FETCH_ARCHIVE_NAME = '.f7t-fetch.tar.gz';

export interface SyncTarget {
  system: string;
  /** Absolute remote folder. */
  remoteRoot: string;
  localRoot: string;
}

export interface ManifestStore {
  load(): Promise<Manifest | undefined>;
  save(m: Manifest): Promise<void>;
}

export interface SyncOptions extends ScanOptions {
  store: ManifestStore;
  /** Bytes up to which a file travels in the archive (default 1 MiB). */
  smallFileLimit?: number;
  /** The system's direct-transfer limit, when the caller knows it (else asked once). */
  directLimit?: number;
  signal?: AbortSignal;
  onProgress?: (p: { message: string; done?: number; total?: number }) => void;
}

export interface SyncPreview {
  target: SyncTarget;
  plan: SyncPlan;
  local: LocalScan;
  remote: Map<string, RemoteFile>;
  remoteExists: boolean;
  manifest: Manifest;
  /**
   * The archive packed during the scan: the small files the manifest already said would go. Used
   * when the plan sends exactly these; rejected when one of them could not be packed.
   */
  packed?: { files: string[]; archive: Promise<Uint8Array> };
}

export interface RunOptions {
  /** Conflicts the user resolved by keeping the local file. */
  keepLocal?: string[];
  /** Delete the remote copies of files deleted locally (the mapping's `deleteRemote`). */
  deleteRemote?: boolean;
}

export interface SyncResult {
  sent: string[];
  deleted: string[];
  /**
   * Changed on the cluster between the preview and the run (a look just before sending): not
   * sent, and a conflict for the next sync. Nothing the preview did not show is overwritten.
   */
  changedOnCluster: string[];
  /** Sent, but the remote listing afterwards did not show them whole: tried again next time. */
  notLanded: string[];
  bytes: number;
}

export function targetKey(t: SyncTarget): string {
  return `${t.system}:${t.remoteRoot}`;
}

function kindOf(e: FileEntry): RemoteFile['kind'] {
  return e.kind === 'directory' ? 'dir' : e.kind === 'symlink' ? 'link' : 'file';
}

/** The remote folder as one recursive listing (names relative to it); `exists` false when it is not there. */
export async function listRemote(client: FirecrestClient, t: SyncTarget, signal?: AbortSignal): Promise<{ files: Map<string, RemoteFile>; exists: boolean }> {
  let entries: FileEntry[];
  try {
    entries = await client.list(t.system, t.remoteRoot, { recursive: true, showHidden: true, signal });
  } catch (e) {
    if (e instanceof NotFoundError) return { files: new Map(), exists: false };
    throw e;
  }
  const files = new Map<string, RemoteFile>();
  for (const e of entries) {
    if (e.name === ARCHIVE_NAME || e.name === FETCH_ARCHIVE_NAME) continue;
    files.set(e.name, { rel: e.name, kind: kindOf(e), size: e.size, mtime: e.mtime });
  }
  return { files, exists: true };
}

/** Everything a sync would do, without doing it (the preview). */
export async function previewSync(client: FirecrestClient, t: SyncTarget, o: SyncOptions): Promise<SyncPreview> {
  o.onProgress?.({ message: 'comparing the local folder with the cluster' });
  const remoteListed = listRemote(client, t, o.signal);
  remoteListed.catch(() => undefined);
  const stored = await o.store.load();
  const manifest = stored?.target === targetKey(t) ? stored : emptyManifest(targetKey(t));
  // While the cluster lists the remote folder, the small files that will go whatever it holds (new
  // or changed here since the last sync, or left half-sent) are packed as the scan finds them.
  const limit = smallLimit(o);
  const pending = new Set(manifest.pending);
  let builder: ArchiveBuilder | undefined;
  let packFailed = false;
  const pack = (f: LocalFile): Promise<void> | undefined => {
    if (packFailed || (f.kind === 'file' && f.size > limit) || !(pending.has(f.rel) || changedLocally(manifest.files[f.rel], f))) return undefined;
    builder ??= new ArchiveBuilder(t.localRoot, limit, () => client.serverNow());
    try {
      return builder.add(f)?.catch(() => { packFailed = true; });
    } catch {
      // runSync packs again and reports the file that could not be read.
      packFailed = true;
      return undefined;
    }
  };
  let local: LocalScan;
  try {
    local = await scanLocal(t.localRoot, o, pack);
  } catch (e) {
    builder?.abandon();
    throw e;
  }
  let packed: SyncPreview['packed'];
  if (builder && packFailed) builder.abandon();
  else if (builder) {
    packed = { files: builder.files, archive: builder.finish() };
    packed.archive.catch(() => undefined);
  }
  const remote = await remoteListed;
  return { target: t, plan: planSync(local.files, remote.files, manifest), local, remote: remote.files, remoteExists: remote.exists, manifest, packed };
}

function smallLimit(o: SyncOptions): number {
  return o.smallFileLimit ?? 1024 * 1024;
}

/** The preview's archive when it holds exactly `small`, else a new one. */
async function archiveFor(client: FirecrestClient, root: string, small: LocalFile[], packed: SyncPreview['packed'], o: SyncOptions): Promise<Uint8Array> {
  if (packed && packed.files.length === small.length) {
    const names = new Set(packed.files);
    if (small.every((f) => names.has(f.rel))) {
      try {
        return await packed.archive;
      } catch {
        // Packed again below, where the failure is reported.
      }
    }
  }
  o.onProgress?.({ message: `packing ${small.length} file(s)` });
  return archiveOf(root, small, smallLimit(o), () => client.serverNow());
}

async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(n, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

/** Whether two remote listings show the same entry (or none): kind, size and mtime to the second. */
function sameEntry(a: RemoteFile | undefined, b: RemoteFile | undefined): boolean {
  if (!a || !b) return a === b;
  return a.kind === b.kind && a.size === b.size && Math.floor(a.mtime / 1000) === Math.floor(b.mtime / 1000);
}

/** Carries out `preview.plan`: sends what it says (and the conflicts kept local), then records what landed. */
export async function runSync(client: FirecrestClient, preview: SyncPreview, o: SyncOptions & RunOptions): Promise<SyncResult> {
  const { target: t, plan, local, manifest } = preview;
  const keep = new Set(o.keepLocal ?? []);
  let send: LocalFile[] = [...plan.upload, ...plan.replace, ...plan.conflicts.filter((c) => keep.has(c.rel))]
    .map((i) => local.files.get(i.rel))
    .filter((f): f is LocalFile => f !== undefined);
  const result: SyncResult = { sent: [], deleted: [], changedOnCluster: [], notLanded: [], bytes: 0 };
  if (send.length === 0 && (!o.deleteRemote || plan.delete.length === 0)) return result;

  // The preview may have stood open for minutes: the cluster is looked at again, and a file that
  // changed there since is left alone (nor is a file deleted that changed meanwhile).
  const now = await listRemote(client, t, o.signal);
  const asPreviewed = (rel: string): boolean => sameEntry(preview.remote.get(rel), now.files.get(rel));
  for (const f of send) if (!asPreviewed(f.rel)) result.changedOnCluster.push(f.rel);
  if (result.changedOnCluster.length) {
    const changed = new Set(result.changedOnCluster);
    send = send.filter((f) => !changed.has(f.rel));
  }
  const toDelete = o.deleteRemote ? plan.delete.filter((rel) => asPreviewed(rel)) : [];
  if (send.length === 0 && toDelete.length === 0) return result;

  // Marked first: a sync cut off from here on is repaired by the next one, not called a conflict.
  manifest.pending = [...new Set([...(manifest.pending ?? []), ...send.map((f) => f.rel)])];
  await o.store.save(manifest);
  // The folder is made while the archive is packed.
  const made = preview.remoteExists ? Promise.resolve() : client.mkdir(t.system, t.remoteRoot, { parents: true, signal: o.signal });
  made.catch(() => undefined);

  const limit = smallLimit(o);
  const small = send.filter((f) => f.kind === 'link' || f.size <= limit);
  const large = send.filter((f) => f.kind === 'file' && f.size > limit);
  if (small.length) {
    const archive = await archiveFor(client, t.localRoot, small, preview.packed, o);
    await made;
    const remoteArchive = posix.join(t.remoteRoot, ARCHIVE_NAME);
    const direct = o.directLimit ?? (await client.systems({ signal: o.signal })).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 0;
    o.onProgress?.({ message: `sending ${small.length} file(s) in one archive (${archive.length} bytes)` });
    if (archive.length <= direct) await client.uploadSmall(t.system, t.remoteRoot, ARCHIVE_NAME, archive, { signal: o.signal });
    else await client.transfers.uploadBytes(t.system, archive, remoteArchive, { signal: o.signal });
    o.onProgress?.({ message: 'unpacking on the cluster' });
    await client.extract(t.system, remoteArchive, t.remoteRoot, { compression: 'gzip', signal: o.signal });
  }
  await made;
  let done = 0;
  await inParallel(large, 2, async (f) => {
    const remotePath = posix.join(t.remoteRoot, f.rel);
    o.onProgress?.({ message: `sending ${f.rel}`, done, total: large.length });
    await client.mkdir(t.system, posix.dirname(remotePath), { parents: true, signal: o.signal });
    await client.transfers.uploadFile(t.system, localPathOf(t.localRoot, f.rel), remotePath, { signal: o.signal });
    if (f.executable) await client.chmod(t.system, remotePath, '755', { signal: o.signal });
    done++;
  });
  for (const rel of toDelete) {
    await client.remove(t.system, posix.join(t.remoteRoot, rel), { signal: o.signal });
    result.deleted.push(rel);
    delete manifest.files[rel];
  }

  // What really landed: the manifest advances only for files the cluster shows whole.
  const after = await listRemote(client, t, o.signal);
  const pending = new Set(manifest.pending);
  for (const f of send) {
    const r = after.files.get(f.rel);
    const whole = r !== undefined && r.kind === (f.kind === 'link' ? 'link' : 'file') && (f.kind === 'link' || r.size === f.size);
    if (!whole) {
      result.notLanded.push(f.rel);
      continue;
    }
    manifest.files[f.rel] = { size: f.size, mtimeMs: f.mtimeMs, kind: f.kind, linkTarget: f.linkTarget, remoteSize: r.size, remoteMtime: r.mtime };
    pending.delete(f.rel);
    result.sent.push(f.rel);
    result.bytes += f.size;
  }
  manifest.pending = pending.size ? [...pending] : undefined;
  await o.store.save(manifest);
  return result;
}
