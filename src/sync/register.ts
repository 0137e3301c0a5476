/**
 * Sync for local projects (issue #21): Map Folder to Cluster, Sync to Cluster, Fetch from Cluster,
 * Sync and Submit, Show Sync Status, sync on save, and the status bar item. Each part is a class of
 * its own beside this file; this wires them.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../common/commandWrapper';
import type { ExtensionServices } from '../common/services';
import { ConflictReview } from './conflictReview';
import { MappedFolderWatch } from './folderWatch';
import { mapFolder } from './mapFolder';
import { MappingStore } from './mappings';
import { SyncStatusBar } from './statusBar';
import { SyncController, syncArgs } from './syncController';
import { SyncOnSave } from './syncOnSave';
import { SyncState } from './syncState';

export type { SyncCommandArgs } from './syncController';

/** Changes within this long of each other are one burst (one recount, one sync on save). */
const DEBOUNCE_MS = 1500;

export function registerSync(services: ExtensionServices): vscode.Disposable {
  const { context, connections } = services;
  const log = services.log.withTag('sync');
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  // Where the folder pairs are kept: the workspace's storage, or its .vscode/settings.json.
  const mappings = new MappingStore(context.workspaceState);
  const state = new SyncState(context.workspaceState);
  const status = new SyncStatusBar(mappings, state);
  const review = new ConflictReview();
  const sync = new SyncController(services, mappings, state, review, () => status.current(), storageDir, log);
  // The waiting changes are counted again after changes in a mapped folder, made in VS Code or not.
  const watch = new MappedFolderWatch(() => mappings.all(), (m) => void sync.refreshPending(m).catch(() => undefined), DEBOUNCE_MS);
  const onSave = new SyncOnSave(mappings, (m) => sync.once(m, () => sync.syncToCluster(m, { preview: false }, true)), log, DEBOUNCE_MS);
  const mapped = (): void => {
    watch.update();
    status.update();
    void sync.refreshPending().catch(() => undefined);
  };
  // After start-up: counting the waiting changes loads the sync bundle (only where a mapping exists).
  const first = mappings.all().length ? setTimeout(() => void sync.refreshPending().catch(() => undefined), 2000) : undefined;
  return vscode.Disposable.from(
    { dispose: () => clearTimeout(first) },
    state, status, watch, onSave,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('firecrest.sync')) return;
      watch.update();
      status.update();
    }),
    registerCommand('firecrest.sync.mapFolder', log, (arg?: unknown) => mapFolder({ connections, mappings, log, mapped }, arg)),
    registerCommand('firecrest.sync.toCluster', log, (arg?: unknown) => {
      const m = sync.chosenMapping(arg);
      return sync.once(m, () => sync.syncToCluster(m, syncArgs(arg)));
    }),
    registerCommand('firecrest.sync.fetch', log, (arg?: unknown) => {
      const m = sync.chosenMapping(arg);
      return sync.once(m, () => sync.fetchFromCluster(m));
    }),
    registerCommand('firecrest.sync.andSubmit', log, (arg?: unknown) => sync.syncAndSubmit(arg)),
    registerCommand('firecrest.sync.status', log, (arg?: unknown) => sync.showStatus(arg)),
    registerCommand('firecrest.sync.keepLocal', log, () => review.keepLocal()),
    registerCommand('firecrest.sync.keepCluster', log, () => review.keepCluster()),
  );
}
