/**
 * Sync for local projects (issue #21): Map Folder to Cluster, Sync to Cluster (with a preview,
 * conflicts resolved in a diff editor), Fetch from Cluster, Sync and Submit, sync on save, and a
 * status bar item with the mapping, the last sync and the changes waiting. The sync itself is the
 * core's (src/core/sync, a bundle loaded on first use); this part asks, shows and remembers.
 */
import * as vscode from 'vscode';
import { NotFoundError } from '../core/errors';
import type { SyncOptions, SyncPreview, SyncResult, SyncTarget, FetchResult } from '../core/sync/index';
import { FirecrestUri } from '../core/uri';
import { registerCommand, reportError } from '../common/commandWrapper';
import { byteSize as bytes } from '../common/byteSize';
import type { JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import { manifestStore } from './manifestStore';
import { askWhereKept, DEFAULT_INCLUDE, MappingStore, type MappingPlace, type ResolvedMapping } from './mappings';
import { pickRemoteFolder } from '../common/remoteFolderPicker';
import { MappedFolderWatch } from './folderWatch';

const STATE_KEY = 'firecrest.sync.state';
const SAVE_DEBOUNCE_MS = 1500;

interface MappingState {
  /** epoch ms of the last sync that finished */
  at?: number;
  /** Local changes not yet sent (from the last look). */
  pending?: number;
}

const core = () => import('../core/sync/index.js');

function targetOf(m: ResolvedMapping): SyncTarget {
  return { system: m.remote.system, remoteRoot: m.remote.path, localRoot: m.localRoot };
}

function remoteName(m: ResolvedMapping): string {
  return `${m.remote.system}:${m.remote.path}`;
}

export interface SyncCommandArgs {
  /** A file or folder inside the mapping (default: the active editor's, or the only mapping). */
  uri?: vscode.Uri | string;
  /** Show the preview (default: the `firecrest.sync.preview` setting). Conflicts are always shown. */
  preview?: boolean;
  /** Conflicts to settle by keeping the local file (scripts and tests; people use Review Conflicts). */
  keepLocal?: string[];
}

export function registerSync(services: ExtensionServices): vscode.Disposable {
  const { context, connections } = services;
  const log = services.log.withTag('sync');
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  const running = new Map<string, Promise<unknown>>();
  /** The conflict under review takes its answer from the diff's title bar too. */
  let conflictChoice: ((side: 'local' | 'cluster') => void) | undefined;
  const state = (m: ResolvedMapping): MappingState => (context.workspaceState.get<Record<string, MappingState>>(STATE_KEY) ?? {})[m.key] ?? {};
  const setState = async (m: ResolvedMapping, s: MappingState): Promise<void> => {
    const all = context.workspaceState.get<Record<string, MappingState>>(STATE_KEY) ?? {};
    await context.workspaceState.update(STATE_KEY, { ...all, [m.key]: { ...all[m.key], ...s } });
    updateStatus();
  };

  // Where the folder pairs are kept: the workspace's storage, or its .vscode/settings.json.
  const mappings = new MappingStore(context.workspaceState);
  const status = vscode.window.createStatusBarItem('firecrest.sync', vscode.StatusBarAlignment.Left, 90);
  status.name = vscode.l10n.t('FirecREST Sync');

  function chosenMapping(arg: unknown): ResolvedMapping {
    const given = arg instanceof vscode.Uri ? arg : (arg as SyncCommandArgs | undefined)?.uri;
    const uri = typeof given === 'string' ? vscode.Uri.file(given) : given ?? vscode.window.activeTextEditor?.document.uri;
    const all = mappings.all();
    const m = (uri && mappings.for(uri)) ?? (all.length === 1 && !given ? all[0] : undefined);
    if (!m) throw new Error(vscode.l10n.t('This folder is not mapped to a cluster directory: run "FirecREST: Map Folder to Cluster…" first.'));
    return m;
  }

  async function options(m: ResolvedMapping): Promise<SyncOptions> {
    const systems = await connections.systems(m.remote.profile).catch(() => []);
    return {
      store: manifestStore(storageDir, m.key),
      exclude: m.mapping.exclude,
      useGitignore: m.mapping.useGitignore !== false,
      directLimit: systems.find((s) => s.name === m.remote.system)?.maxDirectTransferSize,
    };
  }

  /** The preview as a modal: what goes where, the bytes, the conflicts. Resolves to the user's choice. */
  async function askPreview(m: ResolvedMapping, p: SyncPreview, always: boolean): Promise<'sync' | 'review' | undefined> {
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

  /**
   * Each conflict in a diff editor (the cluster's against the local file), and which side stays:
   * asked beside the diff, never over it (a notification, and Keep Local / Keep the Cluster's in
   * the diff's title bar). Closing the notification stops the review; what was decided stands.
   */
  async function reviewConflicts(m: ResolvedMapping, p: SyncPreview): Promise<{ keepLocal: string[]; keepRemote: string[] }> {
    const keepLocal: string[] = [];
    const keepRemote: string[] = [];
    const local_ = vscode.l10n.t('Keep Local');
    const remote_ = vscode.l10n.t("Keep the Cluster's");
    const later = vscode.l10n.t('Decide Later');
    try {
      for (const c of p.plan.conflicts) {
        const remote = vscode.Uri.parse(m.remote.with({ path: `${m.remote.path.replace(/\/+$/, '')}/${c.rel}` }).toString());
        const local = vscode.Uri.file(`${m.localRoot}/${c.rel}`);
        await vscode.commands.executeCommand('vscode.diff', remote, local, vscode.l10n.t('{0} (cluster ↔ local)', c.rel));
        const fromTitle = new Promise<string>((resolve) => { conflictChoice = resolve; });
        void vscode.commands.executeCommand('setContext', 'firecrest.sync.reviewingConflict', true);
        const fromNotice = vscode.window.showInformationMessage(
          vscode.l10n.t('{0} changed on both sides. Which stays? Keep Local sends the local file; Keep the Cluster\'s brings its file here.', c.rel),
          local_, remote_, later,
        );
        const pick = await Promise.race([fromNotice, fromTitle.then((choice) => (choice === 'local' ? local_ : remote_))]);
        if (pick === local_) keepLocal.push(c.rel);
        else if (pick === remote_) keepRemote.push(c.rel);
        else if (!pick) break;
      }
    } finally {
      conflictChoice = undefined;
      void vscode.commands.executeCommand('setContext', 'firecrest.sync.reviewingConflict', false);
    }
    return { keepLocal, keepRemote };
  }

  async function syncToCluster(m: ResolvedMapping, a: SyncCommandArgs = {}, quiet = false): Promise<SyncResult | undefined> {
    const client = await connections.client(m.remote.profile);
    const sync = await core();
    const o = await options(m);
    const preview = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Comparing with {0}…', remoteName(m)) }, () => sync.previewSync(client, targetOf(m), o));
    for (const s of preview.local.skipped) log.warn(`${m.localRoot}: ${s.rel} left out: ${s.why}`);
    const plan = preview.plan;
    let keepLocal = a.keepLocal ?? [];
    let keepRemote: string[] = [];
    if (plan.upload.length + plan.replace.length + plan.conflicts.length === 0 && !(m.mapping.deleteRemote && plan.delete.length)) {
      await setState(m, { at: Date.now(), pending: 0 });
      if (!quiet) void vscode.window.showInformationMessage(vscode.l10n.t('{0} is in sync with {1}.', vscode.workspace.asRelativePath(m.localRoot), remoteName(m)));
      return { sent: [], deleted: [], changedOnCluster: [], notLanded: [], bytes: 0 };
    }
    if (!a.keepLocal) {
      const always = a.preview ?? vscode.workspace.getConfiguration('firecrest').get<boolean>('sync.preview', true);
      const choice = await askPreview(m, preview, always && !quiet);
      if (!choice) return undefined;
      if (choice === 'review') ({ keepLocal, keepRemote } = await reviewConflicts(m, preview));
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
    if (keepRemote.length) await fetchFromCluster(m, { keepRemote, only: keepRemote });
    log.info(`synced ${result.sent.length} file(s), ${bytes(result.bytes)}, to ${remoteName(m)}${result.deleted.length ? `; deleted ${result.deleted.length}` : ''}${result.notLanded.length ? `; ${result.notLanded.length} did not land whole and go again next time` : ''}`);
    for (const rel of result.changedOnCluster) log.warn(`${m.localRoot}: ${rel} not sent: it changed on the cluster after the preview`);
    await setState(m, { at: Date.now(), pending: result.notLanded.length + result.changedOnCluster.length + plan.conflicts.length - keepLocal.length - keepRemote.length });
    if (result.changedOnCluster.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} file(s) changed on the cluster while the preview was open and were not sent: sync again to compare them ({1}).', result.changedOnCluster.length, result.changedOnCluster.slice(0, 3).join(', ')));
    } else if (result.notLanded.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} file(s) did not arrive whole on the cluster: the next sync sends them again ({1}).', result.notLanded.length, result.notLanded.slice(0, 3).join(', ')));
    } else if (!quiet) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Synced {0} file(s) ({1}) to {2}.', result.sent.length, bytes(result.bytes), remoteName(m)));
    }
    return result;
  }

  async function fetchFromCluster(m: ResolvedMapping, a: { keepRemote?: string[]; only?: string[] } = {}): Promise<FetchResult | undefined> {
    const client = await connections.client(m.remote.profile);
    const sync = await core();
    const o = { ...(await options(m)), include: a.only ?? m.mapping.include ?? DEFAULT_INCLUDE };
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
    log.info(`fetched ${result.fetched.length} file(s), ${bytes(result.bytes)}, from ${remoteName(m)}`);
    for (const s of result.skipped) log.warn(`${m.localRoot}: ${s.rel} not fetched: ${s.why}`);
    if (result.skipped.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Fetched {0} file(s) ({1}) from {2}; {3} left as they are: {4}', result.fetched.length, bytes(result.bytes), remoteName(m), result.skipped.length, result.skipped.slice(0, 3).map((x) => `${x.rel} (${x.why})`).join('; ')));
    } else {
      void vscode.window.showInformationMessage(vscode.l10n.t('Fetched {0} file(s) ({1}) from {2}.', result.fetched.length, bytes(result.bytes), remoteName(m)));
    }
    return result;
  }

  /** One sync at a time per mapping: a second request waits for the first. */
  function once<T>(m: ResolvedMapping, work: () => Promise<T>): Promise<T> {
    const before = running.get(m.key) ?? Promise.resolve();
    const next = before.catch(() => undefined).then(work);
    running.set(m.key, next);
    void next.catch(() => undefined).finally(() => { if (running.get(m.key) === next) running.delete(m.key); });
    return next;
  }

  async function mapFolder(arg: unknown): Promise<{ local: string; remote: string; where: MappingPlace } | undefined> {
    const a = (arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? arg : {}) as { local?: string; remote?: string; create?: boolean; where?: MappingPlace };
    const folderUri = arg instanceof vscode.Uri ? arg : a.local ? vscode.Uri.file(a.local) : await pickLocal();
    if (!folderUri) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(folderUri);
    if (!folder || folder.uri.scheme !== 'file') throw new Error(vscode.l10n.t('Map a local folder of this workspace.'));
    let remote = a.remote;
    if (!remote) {
      // The same folder picker as Open Remote Folder, starting at <home>/<this folder's name>.
      const name = folderUri.path.split('/').pop() || 'project';
      const picked = await pickRemoteFolder(connections, {
        title: (system) => vscode.l10n.t('Map {0} to a folder on {1}', folderUri.fsPath === folder.uri.fsPath ? folder.name : vscode.workspace.asRelativePath(folderUri), system),
        start: (home) => `${home === '/' ? '' : home}/${name}`,
        action: (path) => vscode.l10n.t('Map to {0}', path),
      });
      if (!picked) return undefined;
      remote = picked.toString();
    }
    const target = FirecrestUri.parse(remote);
    const client = await connections.client(target.profile);
    try {
      await client.stat(target.system, target.path);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      const create = vscode.l10n.t('Create It');
      const ok = a.create ?? (await vscode.window.showInformationMessage(vscode.l10n.t('{0} does not exist on {1}. Create it?', target.path, target.system), { modal: true }, create)) === create;
      if (!ok) return undefined;
      await client.mkdir(target.system, target.path, { parents: true });
    }
    const local = vscode.workspace.asRelativePath(folderUri, false);
    const rel = folderUri.fsPath === folder.uri.fsPath ? '.' : local.startsWith(`${folder.name}/`) ? local.slice(folder.name.length + 1) : local;
    const where = a.where ?? (await askWhereKept(folder));
    if (!where) return undefined;
    await mappings.save(folder, { local: rel, remote: target.toString() }, where);
    log.info(`mapped ${folderUri.fsPath} to ${target.toString()}`);
    watch.update();
    updateStatus();
    void refreshPending();
    return { local: folderUri.fsPath, remote: target.toString(), where };
  }

  async function pickLocal(): Promise<vscode.Uri | undefined> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (folders.length === 1) return folders[0].uri;
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, defaultUri: folders[0]?.uri, openLabel: vscode.l10n.t('Map to Cluster') });
    return picked?.[0];
  }

  async function syncAndSubmit(arg: unknown): Promise<{ ref?: JobRef; sync?: SyncResult } | undefined> {
    const a = (arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? arg : {}) as SyncCommandArgs & { ask?: 'none' | 'missing' };
    const uri = arg instanceof vscode.Uri ? arg : typeof a.uri === 'string' ? vscode.Uri.file(a.uri) : a.uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new Error(vscode.l10n.t('Open a batch script inside a mapped folder.'));
    const m = chosenMapping(uri);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) await doc.save();
    const sync = await once(m, () => syncToCluster(m, { preview: a.preview, keepLocal: a.keepLocal }, true));
    if (!sync) return undefined;
    const ref = await vscode.commands.executeCommand<JobRef | undefined>('firecrest.submitJob', {
      uri, profile: m.remote.profile ?? connections.defaultProfileName(), system: m.remote.system, workingDirectory: m.remote.path, ask: a.ask ?? 'missing',
    });
    // When the job ends, the Jobs view's notice (it watches the jobs submitted here) offers the results.
    if (ref) services.followUps.set(ref, { title: vscode.l10n.t('Fetch from Cluster'), command: 'firecrest.sync.fetch', args: [{ uri: m.localRoot }] });
    return { ref, sync };
  }

  /** Local changes not yet sent, from the manifest alone (no network): for the status bar. */
  async function refreshPending(mapping?: ResolvedMapping): Promise<void> {
    const m = mapping ?? currentMapping();
    if (!m) return;
    const sync = await core();
    const [local, manifest] = await Promise.all([sync.scanLocal(m.localRoot, { exclude: m.mapping.exclude, useGitignore: m.mapping.useGitignore !== false }), manifestStore(storageDir, m.key).load()]);
    const files = manifest?.files ?? {};
    let pending = 0;
    for (const l of local.files.values()) {
      const e = files[l.rel];
      if (!e || e.size !== l.size || e.mtimeMs !== l.mtimeMs) pending++;
    }
    pending += Object.keys(files).filter((rel) => !local.files.has(rel)).length;
    await setState(m, { pending });
  }

  /** A mapping's pair, its last sync and the changes waiting (as last counted); Sync Now from there. */
  async function showStatus(arg: unknown): Promise<{ local: string; remote: string; pending: number; at?: number }> {
    const m = chosenMapping(arg);
    const s = state(m);
    const result = { local: m.localRoot, remote: m.remote.toString(), pending: s.pending ?? 0, ...(s.at ? { at: s.at } : {}) };
    if (arg && typeof arg === 'object' && (arg as { quiet?: unknown }).quiet === true) return result;
    const syncNow = vscode.l10n.t('Sync Now');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('{0} → {1}: {2} local change(s) waiting. {3}', vscode.workspace.asRelativePath(m.localRoot), remoteName(m), result.pending,
        s.at ? vscode.l10n.t('Last sync {0} min ago.', Math.round((Date.now() - s.at) / 60_000)) : vscode.l10n.t('Not synced yet.')),
      syncNow,
    );
    if (pick === syncNow) await once(m, () => syncToCluster(m, {}));
    return result;
  }

  function currentMapping(): ResolvedMapping | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const all = mappings.all();
    return (uri && mappings.for(uri)) ?? (all.length === 1 ? all[0] : undefined);
  }

  function updateStatus(): void {
    const m = currentMapping();
    void vscode.commands.executeCommand('setContext', 'firecrest.inSyncedFolder', !!(vscode.window.activeTextEditor && mappings.for(vscode.window.activeTextEditor.document.uri)));
    void vscode.commands.executeCommand('setContext', 'firecrest.syncedFolders', mappings.all().map((x) => x.localRoot));
    if (!m) {
      status.hide();
      return;
    }
    const s = state(m);
    const age = s.at ? Math.round((Date.now() - s.at) / 60_000) : undefined;
    status.text = `$(cloud-upload) ${s.pending ? `${s.pending}` : ''}`.trim();
    status.tooltip = new vscode.MarkdownString([
      `**${vscode.workspace.asRelativePath(m.localRoot)}** → \`${m.remote.toString()}\``,
      s.at ? vscode.l10n.t('Last sync: {0} min ago', age ?? 0) : vscode.l10n.t('Not synced yet'),
      s.pending ? vscode.l10n.t('{0} local change(s) waiting', s.pending) : vscode.l10n.t('No local changes waiting'),
      vscode.l10n.t('Click to sync.'),
    ].join('\n\n'));
    status.command = { title: vscode.l10n.t('Sync to Cluster'), command: 'firecrest.sync.toCluster' };
    status.show();
  }

  // Sync on save: debounced per mapping, one at a time, a failure said once until a sync works again.
  const timers = new Map<string, NodeJS.Timeout>();
  const failed = new Set<string>();
  // The waiting changes are counted again after changes in a mapped folder, made in VS Code or
  // not (a save shows there too): once after a burst, not per file.
  const watch = new MappedFolderWatch(() => mappings.all(), (m) => void refreshPending(m).catch(() => undefined), SAVE_DEBOUNCE_MS);
  const onSave = vscode.workspace.onDidSaveTextDocument((doc) => {
    const m = mappings.for(doc.uri);
    if (!m) return;
    if (!vscode.workspace.getConfiguration('firecrest', doc.uri).get<boolean>('sync.onSave', false)) return;
    clearTimeout(timers.get(m.key));
    timers.set(m.key, setTimeout(() => {
      timers.delete(m.key);
      once(m, () => syncToCluster(m, { preview: false }, true)).then(
        () => failed.delete(m.key),
        (e: unknown) => {
          if (failed.has(m.key)) {
            log.warn(`sync on save: ${e instanceof Error ? e.message : String(e)}`);
            return;
          }
          failed.add(m.key);
          reportError(log, 'sync on save', e);
        },
      );
    }, SAVE_DEBOUNCE_MS));
  });

  updateStatus();
  // After start-up: counting the waiting changes loads the sync bundle (only where a mapping exists).
  const first = mappings.all().length ? setTimeout(() => void refreshPending().catch(() => undefined), 2000) : undefined;
  return vscode.Disposable.from(
    { dispose: () => clearTimeout(first) },
    status,
    onSave,
    watch,
    { dispose: () => { timers.forEach((t) => clearTimeout(t)); } },
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('firecrest.sync')) return;
      watch.update();
      updateStatus();
    }),
    registerCommand('firecrest.sync.mapFolder', log, (arg?: unknown) => mapFolder(arg)),
    registerCommand('firecrest.sync.toCluster', log, (arg?: unknown) => {
      const m = chosenMapping(arg);
      return once(m, () => syncToCluster(m, arg instanceof vscode.Uri ? {} : ((arg ?? {}) as SyncCommandArgs)));
    }),
    registerCommand('firecrest.sync.fetch', log, (arg?: unknown) => {
      const m = chosenMapping(arg);
      return once(m, () => fetchFromCluster(m));
    }),
    registerCommand('firecrest.sync.andSubmit', log, (arg?: unknown) => syncAndSubmit(arg)),
    registerCommand('firecrest.sync.status', log, (arg?: unknown) => showStatus(arg)),
    registerCommand('firecrest.sync.keepLocal', log, () => conflictChoice?.('local')),
    registerCommand('firecrest.sync.keepCluster', log, () => conflictChoice?.('cluster')),
  );
}
