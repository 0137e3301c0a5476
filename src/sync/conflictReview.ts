/**
 * Sync's conflict review: each file changed on both sides in a diff editor (the cluster's against
 * the local file), and which side stays, asked beside the diff, never over it: a notification, and
 * Keep Local / Keep the Cluster's in the diff's title bar. An answered file's diff closes before the
 * next one opens. Closing the notification stops the review; what was decided stands.
 */
import * as vscode from 'vscode';
import { ContextKeys } from '../common/contextKeys';
import type { SyncPreview } from '../core/sync/index';
import type { ResolvedMapping } from './mappings';

export class ConflictReview {
  /** The conflict under review takes its answer from the diff's title bar too. */
  private choice: ((side: 'local' | 'cluster') => void) | undefined;

  /** Keep Local (the diff's title bar). */
  keepLocal(): void {
    this.choice?.('local');
  }

  /** Keep the Cluster's (the diff's title bar). */
  keepCluster(): void {
    this.choice?.('cluster');
  }

  async review(m: ResolvedMapping, p: SyncPreview): Promise<{ keepLocal: string[]; keepRemote: string[] }> {
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
        const fromTitle = new Promise<string>((resolve) => { this.choice = (side) => resolve(side === 'local' ? local_ : remote_); });
        void vscode.commands.executeCommand('setContext', ContextKeys.reviewingConflict, true);
        const fromNotice = vscode.window.showInformationMessage(
          vscode.l10n.t('{0} changed on both sides. Which stays? Keep Local sends the local file; Keep the Cluster\'s brings its file here.', c.rel),
          local_, remote_, later,
        );
        const pick = await Promise.race([fromNotice, fromTitle]);
        if (!pick) break;
        if (pick === local_) keepLocal.push(c.rel);
        else if (pick === remote_) keepRemote.push(c.rel);
        // Answered: its diff goes, so the next one is the only one open.
        await closeDiff(remote, local);
      }
    } finally {
      this.choice = undefined;
      void vscode.commands.executeCommand('setContext', ContextKeys.reviewingConflict, false);
    }
    return { keepLocal, keepRemote };
  }
}

/** Closes the review's diff of `remote` against `local` where it is still open and holds no unsaved edit. */
async function closeDiff(remote: vscode.Uri, local: vscode.Uri): Promise<void> {
  // An edit not saved yet stays in view (closing would ask to save it).
  if (vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === local.toString())) return;
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.toString() === remote.toString() && t.input.modified.toString() === local.toString());
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
}
