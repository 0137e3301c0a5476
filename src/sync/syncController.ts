/**
 * Sync's work for one window: Sync to Cluster (with its preview, conflicts reviewed beside a diff),
 * Fetch from Cluster, Sync and Submit, the count of local changes waiting, and one sync at a time
 * per mapping. The sync itself is the core's (src/core/sync, a bundle loaded on first use); this
 * asks, shows and remembers.
 */
import * as vscode from 'vscode';
import { activeDocumentUri } from '../common/activeDocument';
import { fields, flag, givenUri, listOf, oneOf, text, uriOrPath, type Read } from '../common/commandArgs';
import { byteSize as bytes } from '../common/byteSize';
import type { JobRef } from '../common/jobRef';
import type { ExtensionServices, Log } from '../common/services';
import type { FetchResult, SyncOptions, SyncPreview, SyncResult, SyncTarget } from '../core/sync/index';
import type { ConflictReview } from './conflictReview';
import { manifestStore } from './manifestStore';
import { DEFAULT_INCLUDE, type MappingStore, type ResolvedMapping } from './mappings';
import type { SyncState } from './syncState';

const core = () => import('../core/sync/index.js');

function targetOf(m: ResolvedMapping): SyncTarget {
  return { system: m.remote.system, remoteRoot: m.remote.path, localRoot: m.localRoot };
}

export function remoteName(m: ResolvedMapping): string {
  return `${m.remote.system}:${m.remote.path}`;
}

/**
 * What the sync commands take besides a Uri: `uri`, a file or folder inside the mapping (default:
 * the active editor's, or the only mapping); `preview`, show the preview (default: the
 * `firecrest.sync.preview` setting; conflicts are always shown); `keepLocal`, conflicts to settle
 * by keeping the local file (scripts and tests; people use Review Conflicts).
 */
const SYNC_ARGS = { uri: uriOrPath, preview: flag, keepLocal: listOf(text) };
export type SyncCommandArgs = Read<typeof SYNC_ARGS>;
export const syncArgs = (arg: unknown): SyncCommandArgs => fields(arg, SYNC_ARGS);

export class SyncController {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly services: ExtensionServices,
    private readonly mappings: MappingStore,
    private readonly state: SyncState,
    private readonly review: ConflictReview,
    /** The mapping a command without argument is about (the status bar's). */
    private readonly current: () => ResolvedMapping | undefined,
    private readonly storageDir: string,
    private readonly log: Log,
  ) {}

  chosenMapping(arg: unknown): ResolvedMapping {
    const given = givenUri(arg);
    const uri = given ?? activeDocumentUri();
    const all = this.mappings.all();
    const m = (uri && this.mappings.for(uri)) ?? (all.length === 1 && !given ? all[0] : undefined);
    if (!m) throw new Error(vscode.l10n.t('This folder is not mapped to a cluster directory: run "FirecREST: Map Folder to Cluster…" first.'));
    return m;
  }

  async options(m: ResolvedMapping): Promise<SyncOptions> {
    const systems = await this.services.connections.systems(m.remote.profile).catch(() => []);
    return {
      store: manifestStore(this.storageDir, m.key),
      exclude: m.mapping.exclude,
      useGitignore: m.mapping.useGitignore !== false,
      directLimit: systems.find((s) => s.name === m.remote.system)?.maxDirectTransferSize,
    };
  }

  /** The preview as a modal: what goes where, the bytes, the conflicts. Resolves to the user's choice. */
  async askPreview(m: ResolvedMapping, p: SyncPreview, always: boolean): Promise<'sync' | 'review' | undefined> {
    const plan = p.plan;
    const lines = [
      vscode.l10n.t('{0} new, {1} changed: {2} to send.', plan.upload.length, plan.replace.length, bytes(plan.bytes)),
      ...(m.mapping.deleteRemote && plan.delete.length ? [vscode.l10n.t('{0} deleted here will be deleted on the cluster: {1}', plan.delete.length, plan.delete.slice(0, 5).join(', '))] : []),
      ...(plan.conflicts.length ? [vscode.l10n.t('{0} changed on both sides, left alone unless you review them: {1}', plan.conflicts.length, plan.conflicts.slice(0, 5).map((c) => c.rel).join(', '))] : []),
      ...(plan.remoteChanged.length ? [vscode.l10n.t('{0} changed on the cluster only (Fetch from Cluster brings them): {1}', plan.remoteChanged.length, plan.remoteChanged.slice(0, 5).join(', '))] : []),
      ...(p.local.skipped.length ? [vscode.l10n.t('{0} left out: {1}', p.local.skipped.length, p.local.skipped.slice(0, 3).map((s) => `${s.rel} (${s.why})`).join(', '))] : []),
    ];
    if (!always && plan.conflicts.length === 0) return 'sync';
    const sync = vscode.l10n.t('Sync');
    const review = vscode.l10n.t('Review Conflicts…');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('Sync {0} to {1}?', vscode.workspace.asRelativePath(m.localRoot), remoteName(m)),
      { modal: true, detail: lines.join('\n') },
      ...(plan.upload.length + plan.replace.length > 0 || (m.mapping.deleteRemote && plan.delete.length) ? [sync] : []),
      ...(plan.conflicts.length ? [review] : []),
    );
    return pick === sync ? 'sync' : pick === review ? 'review' : undefined;
  }

  async syncToCluster(m: ResolvedMapping, a: SyncCommandArgs = {}, quiet = false): Promise<SyncResult | undefined> {
    const client = await this.services.connections.client(m.remote.profile);
    const sync = await core();
    const o = await this.options(m);
    const preview = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Comparing with {0}…', remoteName(m)) }, () => sync.previewSync(client, targetOf(m), o));
    for (const s of preview.local.skipped) this.log.warn(`${m.localRoot}: ${s.rel} left out: ${s.why}`);
    const plan = preview.plan;
    let keepLocal = a.keepLocal ?? [];
    let keepRemote: string[] = [];
    if (plan.upload.length + plan.replace.length + plan.conflicts.length === 0 && !(m.mapping.deleteRemote && plan.delete.length)) {
      await this.state.set(m, { at: Date.now(), pending: 0 });
      if (!quiet) void vscode.window.showInformationMessage(vscode.l10n.t('{0} is in sync with {1}.', vscode.workspace.asRelativePath(m.localRoot), remoteName(m)));
      return { sent: [], deleted: [], changedOnCluster: [], notLanded: [], bytes: 0 };
    }
    if (!a.keepLocal) {
      const always = a.preview ?? vscode.workspace.getConfiguration('firecrest').get<boolean>('sync.preview', true);
      const choice = await this.askPreview(m, preview, always && !quiet);
      if (!choice) return undefined;
      if (choice === 'review') ({ keepLocal, keepRemote } = await this.review.review(m, preview));
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Syncing to {0}', remoteName(m)), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        try {
          return await sync.runSync(client, preview, { ...o, keepLocal, deleteRemote: m.mapping.deleteRemote, signal: abort.signal, onProgress: (p) => progress.report({ message: p.message }) });
        } finally {
          sub.dispose();
        }
      },
    );
    if (keepRemote.length) await this.fetchFromCluster(m, { keepRemote, only: keepRemote });
    this.log.info(`synced ${result.sent.length} file(s), ${bytes(result.bytes)}, to ${remoteName(m)}${result.deleted.length ? `; deleted ${result.deleted.length}` : ''}${result.notLanded.length ? `; ${result.notLanded.length} did not land whole and go again next time` : ''}`);
    for (const rel of result.changedOnCluster) this.log.warn(`${m.localRoot}: ${rel} not sent: it changed on the cluster after the preview`);
    await this.state.set(m, { at: Date.now(), pending: result.notLanded.length + result.changedOnCluster.length + plan.conflicts.length - keepLocal.length - keepRemote.length });
    if (result.changedOnCluster.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} file(s) changed on the cluster while the preview was open and were not sent: sync again to compare them ({1}).', result.changedOnCluster.length, result.changedOnCluster.slice(0, 3).join(', ')));
    } else if (result.notLanded.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} file(s) did not arrive whole on the cluster: the next sync sends them again ({1}).', result.notLanded.length, result.notLanded.slice(0, 3).join(', ')));
    } else if (!quiet) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Synced {0} file(s) ({1}) to {2}.', result.sent.length, bytes(result.bytes), remoteName(m)));
    }
    return result;
  }

  async fetchFromCluster(m: ResolvedMapping, a: { keepRemote?: string[]; only?: string[] } = {}): Promise<FetchResult | undefined> {
    const client = await this.services.connections.client(m.remote.profile);
    const sync = await core();
    const o = { ...(await this.options(m)), include: a.only ?? m.mapping.include ?? DEFAULT_INCLUDE };
    const preview = await sync.previewFetch(client, targetOf(m), o);
    if (preview.plan.download.length === 0 && !(a.keepRemote?.length)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Nothing new on the cluster in {0} ({1}).', remoteName(m), o.include.join(', ')));
      return { fetched: [], bytes: 0, skipped: [] };
    }
    if (preview.plan.conflicts.length && !a.keepRemote) {
      const go = vscode.l10n.t('Fetch the Others');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t('{0} local file(s) changed since the last sync are left as they are: {1}', preview.plan.conflicts.length, preview.plan.conflicts.slice(0, 5).map((c) => c.rel).join(', ')),
        { modal: true },
        go,
      );
      if (pick !== go) return undefined;
    }
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Fetching from {0}', remoteName(m)) }, (progress) =>
      sync.runFetch(client, preview, { ...o, keepRemote: a.keepRemote, onProgress: (p) => progress.report({ message: p.message }) }),
    );
    this.log.info(`fetched ${result.fetched.length} file(s), ${bytes(result.bytes)}, from ${remoteName(m)}`);
    for (const s of result.skipped) this.log.warn(`${m.localRoot}: ${s.rel} not fetched: ${s.why}`);
    if (result.skipped.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Fetched {0} file(s) ({1}) from {2}; {3} left as they are: {4}', result.fetched.length, bytes(result.bytes), remoteName(m), result.skipped.length, result.skipped.slice(0, 3).map((x) => `${x.rel} (${x.why})`).join('; ')));
    } else {
      void vscode.window.showInformationMessage(vscode.l10n.t('Fetched {0} file(s) ({1}) from {2}.', result.fetched.length, bytes(result.bytes), remoteName(m)));
    }
    return result;
  }

  /** One sync at a time per mapping: a second request waits for the first. */
  once<T>(m: ResolvedMapping, work: () => Promise<T>): Promise<T> {
    const before = this.running.get(m.key) ?? Promise.resolve();
    const next = before.catch(() => undefined).then(work);
    this.running.set(m.key, next);
    void next.catch(() => undefined).finally(() => { if (this.running.get(m.key) === next) this.running.delete(m.key); });
    return next;
  }

  async syncAndSubmit(arg: unknown): Promise<{ ref?: JobRef; sync?: SyncResult } | undefined> {
    const a = { ...syncArgs(arg), ...fields(arg, { ask: oneOf('none', 'missing') }) };
    const uri = givenUri(arg) ?? activeDocumentUri();
    if (!uri) throw new Error(vscode.l10n.t('Open a batch script inside a mapped folder.'));
    const m = this.chosenMapping(uri);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) await doc.save();
    const sync = await this.once(m, () => this.syncToCluster(m, { preview: a.preview, keepLocal: a.keepLocal }, true));
    if (!sync) return undefined;
    const ref = await this.services.submitter.submit({
      uri, profile: m.remote.profile ?? this.services.connections.defaultProfileName(), system: m.remote.system, workingDirectory: m.remote.path, ask: a.ask ?? 'missing',
    });
    // When the job ends, the Jobs view's notice (it watches the jobs submitted here) offers the results.
    if (ref) this.services.followUps.set(ref, { title: vscode.l10n.t('Fetch from Cluster'), command: 'firecrest.sync.fetch', args: [{ uri: m.localRoot }] });
    return { ref, sync };
  }

  /** Local changes not yet sent, from the manifest alone (no network): for the status bar. */
  async refreshPending(mapping?: ResolvedMapping): Promise<void> {
    const m = mapping ?? this.current();
    if (!m) return;
    const sync = await core();
    const [local, manifest] = await Promise.all([sync.scanLocal(m.localRoot, { exclude: m.mapping.exclude, useGitignore: m.mapping.useGitignore !== false }), manifestStore(this.storageDir, m.key).load()]);
    const files = manifest?.files ?? {};
    let pending = 0;
    for (const l of local.files.values()) {
      const e = files[l.rel];
      if (!e || e.size !== l.size || e.mtimeMs !== l.mtimeMs) pending++;
    }
    pending += Object.keys(files).filter((rel) => !local.files.has(rel)).length;
    await this.state.set(m, { pending });
  }

  /** A mapping's pair, its last sync and the changes waiting (as last counted); Sync Now from there. */
  async showStatus(arg: unknown): Promise<{ local: string; remote: string; pending: number; at?: number }> {
    const m = this.chosenMapping(arg);
    const s = this.state.get(m);
    const result = { local: m.localRoot, remote: m.remote.toString(), pending: s.pending ?? 0, ...(s.at ? { at: s.at } : {}) };
    if (fields(arg, { quiet: flag }).quiet) return result;
    const syncNow = vscode.l10n.t('Sync Now');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('{0} → {1}: {2} local change(s) waiting. {3}', vscode.workspace.asRelativePath(m.localRoot), remoteName(m), result.pending,
        s.at ? vscode.l10n.t('Last sync {0} min ago.', Math.round((Date.now() - s.at) / 60_000)) : vscode.l10n.t('Not synced yet.')),
      syncNow,
    );
    if (pick === syncNow) await this.once(m, () => this.syncToCluster(m, {}));
    return result;
  }
}
