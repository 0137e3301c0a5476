/**
 * Registers the `firecrest` file system: the provider, its window-focus gate, and the systems'
 * direct-transfer limits. Returns a handle whose `refresh` the composition root hands to the file
 * commands (which may not import this folder).
 */
import * as vscode from 'vscode';
import { cannotReach, siteOf } from '../common/reachability';
import { messageOf, NotFoundError } from '../core/errors';
import { FIRECREST_SCHEME } from '../core/uri';
import type { ExtensionServices } from '../common/services';
import { FirecrestFileSystemProvider } from './provider';
import type { LargeFileTransfers } from './remoteFileSystem';

/** pyfirecrest's direct-transfer limit, used when a system does not report its own. */
const DEFAULT_DIRECT_LIMIT = 1024 * 1024;

/** What the composition root gets back: dispose, and a way to say "this changed" from elsewhere. */
export interface RemoteFileSystemHandle extends vscode.Disposable {
  readonly provider: vscode.FileSystemProvider;
  /** Forgets cached listings around `uri` and tells VS Code it changed or was created (chmod, symlink...). */
  refresh(uri: vscode.Uri, created?: boolean): void;
}

/** `largeFiles`: staged transfers for files above the direct limit (refused with a clear error without it). */
export function registerFileSystem(services: ExtensionServices, largeFiles?: LargeFileTransfers): RemoteFileSystemHandle {
  const { connections } = services;
  const log = services.log.withTag('fs');
  const provider = new FirecrestFileSystemProvider(
    {
      clientFor: (profile) => connections.client(profile),
      directLimit: async (profile, system) => {
        const found = (await connections.systems(profile)).find((s) => s.name === system);
        if (!found) throw new NotFoundError(vscode.l10n.t('No system named {0}', system));
        return found.maxDirectTransferSize > 0 ? found.maxDirectTransferSize : DEFAULT_DIRECT_LIMIT;
      },
      largeFiles,
      poller: { active: vscode.window.state.focused },
    },
    log,
  );
  // "Cannot reach <site>", once per outage of a connection, when a folder could not be listed.
  const warned = new Set<string>();
  const registrations = vscode.Disposable.from(
    vscode.workspace.registerFileSystemProvider(FIRECREST_SCHEME, provider, { isCaseSensitive: true }),
    provider.onUnreachable((u) => {
      const name = u.profile ?? connections.defaultProfileName();
      const info = connections.connections().find((c) => c.profile.name === name);
      if (!name || !info || warned.has(name)) return;
      warned.add(name);
      const retry = vscode.l10n.t('Retry');
      const showLog = vscode.l10n.t('Show Log');
      void vscode.window.showWarningMessage(
        vscode.l10n.t('{0}: remote folders show what was last listed, and saves wait until it answers.', cannotReach(siteOf(info.profile))),
        retry, showLog,
      ).then((pick) => {
        if (pick === retry) void vscode.commands.executeCommand('firecrest.retryConnection', { profile: name });
        else if (pick === showLog) void vscode.commands.executeCommand('firecrest.showLog');
      });
    }),
    // An unfocused window polls nothing; on return, visible folders catch up at once.
    vscode.window.onDidChangeWindowState((s) => provider.poller.setActive(s.focused)),
    // A server that answers again: remote folders in the Explorer that failed meanwhile (`!`) are
    // read again without the user refreshing.
    connections.onDidRecover((name) => {
      warned.delete(name);
      // Saves that failed while the server was away go again, as a user would expect: the editors
      // still hold the text (dirty), and nothing else was changed meanwhile by this window.
      for (const key of [...provider.failedSaves]) {
        provider.failedSaves.delete(key);
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
        if (!doc?.isDirty) continue;
        log.info(`the server answers again: saving ${doc.uri.path} again`);
        void doc.save().then((ok) => { if (!ok) log.warn(`saving ${doc.uri.path} again did not complete; it stays unsaved in its editor`); }, (e: unknown) => log.warn(`saving ${doc.uri.path} again failed: ${messageOf(e)}`));
      }
      const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FIRECREST_SCHEME);
      if (roots.length === 0) return;
      log.info(`the server answers again: refreshing ${roots.length} remote folder(s) in the Explorer`);
      for (const root of roots) provider.refresh(root.uri);
      void vscode.commands.executeCommand('workbench.files.action.refreshFilesExplorer').then(undefined, () => undefined);
    }),
    provider,
  );
  return {
    provider,
    refresh: (uri, created) => provider.refresh(uri, created),
    dispose: () => {
      registrations.dispose();
    },
  };
}
