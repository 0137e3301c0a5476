/**
 * The Jobs view: wires the model, the provider and the refresh scheduler to a TreeView. Polling
 * follows the view's visibility; finished jobs of the user raise one notification each.
 */
import * as vscode from 'vscode';
import type { Job } from '../../core/model';
import type { JobRef } from '../../common/jobRef';
import { RefreshScheduler, type RefreshReason } from '../../common/refreshScheduler';
import type { ExtensionServices } from '../../common/services';
import type { JobsFilter, JobsViewControl } from '../../common/viewControls';
import { onConnectionsChanged, onReachabilityChanged } from '../connectionSignature';
import { snapshotTree } from '../treeSnapshot';
import { endingOf } from '../../common/jobFormat';
import { JobsModel } from './jobsModel';
import type { JobsNode } from './jobsNodes';
import { JobsProvider } from './jobsProvider';
import { messageOf } from '../../core/errors';

export class JobsView implements JobsViewControl, vscode.Disposable {
  private readonly model: JobsModel;
  private readonly provider: JobsProvider;
  private readonly view: vscode.TreeView<JobsNode>;
  private readonly scheduler: RefreshScheduler;
  private readonly disposables: vscode.Disposable[] = [];
  /** Finish notices shown so far (tests read them through `snapshot`). */
  private readonly notices: string[] = [];
  private loading = false;
  private readonly log: ReturnType<ExtensionServices['log']['withTag']>;
  /** profile/system/jobId of the jobs cancelled from this window. */
  private readonly userCancelled = new Set<string>();
  private readonly followUps: ExtensionServices['followUps'];

  constructor(services: ExtensionServices) {
    const log = services.log.withTag('jobs');
    this.followUps = services.followUps;
    this.log = log;
    this.model = new JobsModel(services.connections);
    this.provider = new JobsProvider(this.model, services.dependencies);
    this.view = vscode.window.createTreeView('firecrest.jobs', { treeDataProvider: this.provider, canSelectMany: true, showCollapseAll: true });
    this.scheduler = new RefreshScheduler({
      run: (reason, signal) => this.run(reason, signal),
      onError: (e) => log.warn(`refresh failed: ${messageOf(e)}`),
      onSettled: () => this.updateTexts(),
    });
    this.disposables.push(
      this.model,
      this.provider,
      this.view,
      this.view.onDidChangeVisibility((e) => {
        this.scheduler.setVisible(e.visible);
        if (e.visible) this.model.watch.stopHidden();
        else this.watchHidden();
      }),
      onConnectionsChanged(services.connections, () => this.scheduler.request('connection')),
      // "Cannot reach <site>" shows (and goes) as soon as the connection says so.
      onReachabilityChanged(services.connections, () => this.scheduler.request('connection')),
      services.connections.onDidRecover(() => this.scheduler.request('connection')),
      this.model.onDidFinish(({ ref, job }) => this.notifyFinished(ref, job)),
      // The queue is shown at once; what took longer (v1 accounting) comes with the next listing.
      this.model.onDidLearnMore(() => this.scheduler.request('timer')),
    );
    this.scheduler.setVisible(this.view.visible);
    this.updateTexts();
  }

  get allUsers(): boolean {
    return this.model.allUsers;
  }

  get filter(): JobsFilter {
    return { ...this.model.filter };
  }

  refresh(): void {
    this.scheduler.request('manual');
  }

  setAllUsers(on: boolean): void {
    this.model.allUsers = on;
    void vscode.commands.executeCommand('setContext', 'firecrest.jobs.allUsers', on);
    this.updateTexts();
    this.scheduler.request('config');
  }

  setFilter(filter: JobsFilter): void {
    this.model.filter = { account: filter.account || undefined, name: filter.name || undefined };
    void vscode.commands.executeCommand('setContext', 'firecrest.jobs.filtered', Boolean(filter.account || filter.name));
    this.updateTexts();
    this.scheduler.request('config');
  }

  track(ref: JobRef): void {
    this.model.track(ref);
    this.scheduler.request('action');
    this.watchHidden();
  }

  /** With the view hidden, the jobs this window submitted are still watched (jobWatch.ts). */
  private watchHidden(): void {
    this.model.watch.watchHidden(() => this.view.visible, this.log);
  }

  async reveal(ref: JobRef): Promise<boolean> {
    let node = this.provider.jobNode(ref.profile, ref.system, ref.jobId);
    if (!node) {
      this.model.track(ref);
      await vscode.commands.executeCommand('firecrest.jobs.focus');
      // The view says "updating…" meanwhile; a loaded scheduler can take many seconds to list.
      await this.listed(60_000);
      node = this.provider.jobNode(ref.profile, ref.system, ref.jobId);
    }
    if (node) await this.view.reveal(node, { select: true, focus: true, expand: true });
    return node !== undefined;
  }

  listed(timeoutMs: number): Promise<boolean> {
    return this.scheduler.refreshed('manual', timeoutMs);
  }

  retry(_node: unknown): void {
    this.scheduler.request('manual');
  }

  selection(): readonly unknown[] {
    return this.view.selection;
  }

  async snapshot(): Promise<unknown> {
    return {
      visible: this.view.visible,
      description: this.view.description,
      message: this.view.message,
      loaded: this.model.loaded,
      loading: this.loading,
      nextDelayMs: this.scheduler.currentDelayMs,
      backoffMs: this.scheduler.backoff,
      notices: [...this.notices],
      // From the model: the provider's own getChildren records what VS Code holds.
      tree: await snapshotTree<JobsNode>({ getChildren: (n) => this.provider.childrenOf(n), getTreeItem: (n) => this.provider.getTreeItem(n) }),
      refreshes: { ...this.provider.refreshes },
    };
  }

  private async run(_reason: RefreshReason, signal: AbortSignal) {
    this.loading = true;
    this.updateTexts();
    try {
      return await this.model.load(signal);
    } finally {
      this.loading = false;
    }
  }

  cancelling(ref: JobRef): () => void {
    const key = `${ref.profile}/${ref.system}/${ref.jobId}`;
    this.userCancelled.add(key);
    return () => this.userCancelled.delete(key);
  }

  private notifyFinished(ref: JobRef, job: Job): void {
    // A job the user cancelled here ended as asked: the cancel command said so once already.
    if (job.stateClass === 'cancelled' && this.userCancelled.delete(`${ref.profile}/${ref.system}/${ref.jobId}`)) return;
    const text = vscode.l10n.t('Job {0} ({1}) on {2} {3}.', job.id, job.name, ref.system, endingOf(job));
    this.notices.push(`${ref.system}/${job.id}: ${text}`);
    const open = vscode.l10n.t('Open Output');
    // Another feature's next step for this job (Sync and Submit: Fetch from Cluster), on the same notice.
    const next = this.followUps.take(ref);
    const actions = next ? [open, next.title] : [open];
    const shown = job.stateClass === 'completed' ? vscode.window.showInformationMessage(text, ...actions) : vscode.window.showWarningMessage(text, ...actions);
    void shown.then((pick) => {
      if (pick === open) void vscode.commands.executeCommand('firecrest.openJobOutput', ref);
      else if (next && pick === next.title) void vscode.commands.executeCommand(next.command, ...next.args);
    });
  }

  private updateTexts(): void {
    const at = this.model.lastUpdated;
    const time = at ? at.toLocaleTimeString(undefined, { hour12: false }) : undefined;
    const backoff = this.scheduler.backoff;
    this.view.description = this.loading
      ? time
        ? vscode.l10n.t('updating… ({0})', time)
        : vscode.l10n.t('updating…')
      : backoff > 0
        ? time ? vscode.l10n.t('rate limited: next try in {0} s (updated {1})', Math.round(backoff / 1000), time) : vscode.l10n.t('rate limited: next try in {0} s', Math.round(backoff / 1000))
        : time
          ? `updated ${time}`
          : undefined;
    const parts: string[] = [];
    if (this.model.allUsers) parts.push("all users' jobs");
    if (this.model.filter.account) parts.push(`account ${this.model.filter.account}`);
    if (this.model.filter.name) parts.push(vscode.l10n.t('name, id, partition or state contains "{0}"', this.model.filter.name));
    this.view.message = parts.length ? `Showing ${parts.join(', ')}` : undefined;
  }

  dispose(): void {
    this.scheduler.dispose();
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
