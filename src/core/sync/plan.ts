/**
 * What a sync would do, decided from three listings: the local folder, the remote folder (one
 * recursive listing) and the manifest of the last sync. Nothing here touches the network.
 *
 * A file is sent when it is new or changed locally (size or mtime differ from the manifest) and the
 * remote copy is what the last sync left there (or missing). A remote file that changed since the
 * last sync is never overwritten silently: with a local change too it is a conflict; without one
 * it is reported as changed on the cluster (Fetch brings it back). A remote file the last sync did
 * not leave there is a conflict as well. Files the last, interrupted sync was sending are repaired
 * without a conflict: their remote state is the sync's own half-written work.
 */
import type { LocalFile } from './localTree';

export interface RemoteFile {
  rel: string;
  kind: 'file' | 'link' | 'dir';
  size: number;
  /** epoch ms, second resolution */
  mtime: number;
}

/** What the manifest remembers of one file after it landed. */
export interface ManifestEntry {
  size: number;
  mtimeMs: number;
  kind: 'file' | 'link';
  linkTarget?: string;
  /** The remote listing's size and mtime right after the sync. */
  remoteSize: number;
  remoteMtime: number;
}

export interface Manifest {
  version: 1;
  /** `system:/path` the folder was synced to; another target starts from an empty manifest. */
  target: string;
  files: Record<string, ManifestEntry>;
  /** Files a sync was sending when it was cut off: their remote state is the sync's own. */
  pending?: string[];
}

export type ConflictReason = 'both changed' | 'not from a sync';

export interface PlanItem {
  rel: string;
  size: number;
}

export interface SyncPlan {
  /** New files (no remote copy). */
  upload: PlanItem[];
  /** Changed files whose remote copy is the last sync's (or a half-written repair). */
  replace: PlanItem[];
  /** Would overwrite a remote change: left alone unless the user keeps the local side. */
  conflicts: (PlanItem & { reason: ConflictReason; remote: RemoteFile })[];
  /** Deleted locally, unchanged remotely: deleted only with `deleteRemote`. */
  delete: string[];
  /** Changed on the cluster only. */
  remoteChanged: string[];
  unchanged: number;
  /** Bytes to send (upload + replace). */
  bytes: number;
}

export function emptyManifest(target: string): Manifest {
  return { version: 1, target, files: {} };
}

function sameRemote(m: ManifestEntry, r: RemoteFile): boolean {
  return m.remoteSize === r.size && Math.floor(m.remoteMtime / 1000) === Math.floor(r.mtime / 1000);
}

/** New, or changed since the last sync recorded it. */
export function changedLocally(m: ManifestEntry | undefined, l: LocalFile): boolean {
  return !m || m.size !== l.size || m.mtimeMs !== l.mtimeMs || m.kind !== l.kind || m.linkTarget !== l.linkTarget;
}

export function planSync(local: Map<string, LocalFile>, remote: Map<string, RemoteFile>, manifest: Manifest): SyncPlan {
  const plan: SyncPlan = { upload: [], replace: [], conflicts: [], delete: [], remoteChanged: [], unchanged: 0, bytes: 0 };
  const pending = new Set(manifest.pending ?? []);
  for (const l of local.values()) {
    const m = manifest.files[l.rel];
    const r = remote.get(l.rel);
    const item = { rel: l.rel, size: l.size };
    if (!r || r.kind === 'dir') {
      // Missing remotely (new, or deleted on the cluster): sent, nothing is lost. A folder in its
      // place is not replaced by a file.
      if (r?.kind === 'dir') plan.conflicts.push({ ...item, reason: 'not from a sync', remote: r });
      else plan.upload.push(item);
      continue;
    }
    if (pending.has(l.rel)) {
      plan.replace.push(item);
    } else if (!m) {
      plan.conflicts.push({ ...item, reason: 'not from a sync', remote: r });
    } else if (sameRemote(m, r)) {
      if (changedLocally(m, l)) plan.replace.push(item);
      else plan.unchanged++;
    } else if (changedLocally(m, l)) {
      plan.conflicts.push({ ...item, reason: 'both changed', remote: r });
    } else {
      plan.remoteChanged.push(l.rel);
    }
  }
  for (const [rel, m] of Object.entries(manifest.files)) {
    if (local.has(rel)) continue;
    const r = remote.get(rel);
    if (r && sameRemote(m, r)) plan.delete.push(rel);
  }
  plan.bytes = [...plan.upload, ...plan.replace].reduce((s, i) => s + i.size, 0);
  return plan;
}
