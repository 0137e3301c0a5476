/**
 * The Systems view: no polling (status changes slowly and costs scheduler calls); it repaints on
 * connection changes, Refresh and Retry, and, while visible, asks again by itself for what failed
 * because the server was away.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import type { StorageSource, SystemsViewControl } from '../../common/viewControls';
import { onConnectionsChanged, onReachabilityChanged } from '../connectionSignature';
import { snapshotTree } from '../treeSnapshot';
import { SystemsModel } from './systemsModel';
import type { SystemsNode } from './systemsNodes';
import { SystemsProvider } from './systemsProvider';

export class SystemsView implements SystemsViewControl, vscode.Disposable {
  private readonly model: SystemsModel;
  private readonly provider: SystemsProvider;
  private readonly view: vscode.TreeView<SystemsNode>;
  private readonly disposables: vscode.Disposable[];

  constructor(services: ExtensionServices, storage?: StorageSource) {
    this.model = new SystemsModel(services.connections);
    this.provider = new SystemsProvider(this.model, storage);
    this.view = vscode.window.createTreeView('firecrest.systems', { treeDataProvider: this.provider, showCollapseAll: true });
    this.disposables = [
      this.model, this.provider, this.view,
      onConnectionsChanged(services.connections, () => this.model.refresh()),
      // "Cannot reach <site>" shows (and goes) as soon as the connection says so.
      onReachabilityChanged(services.connections, () => this.provider.repaint()),
      // The server answers again: what failed meanwhile is asked for now, not at the next heal.
      services.connections.onDidRecover(() => this.model.retryFailed()),
      this.view.onDidChangeVisibility((e) => this.model.setVisible(e.visible)),
    ];
    this.model.setVisible(this.view.visible);
  }

  refresh(): void {
    this.model.refresh();
  }

  retry(_node: unknown): void {
    this.model.retryFailed();
  }

  async snapshot(): Promise<unknown> {
    return { visible: this.view.visible, tree: await snapshotTree(this.provider) };
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
