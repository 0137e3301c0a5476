/**
 * `firecrest.showTransfers` opens (or reveals) the one Transfer Centre, restored after a window
 * reload by the serializer; `firecrest.transfers.clear` forgets the finished transfers; a status
 * bar entry shows while transfers run.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../../common/commandWrapper';
import type { ExtensionServices } from '../../common/services';
import type { TransferEvents } from '../../common/transferEvents';
import type { InterruptedUpload } from '../../common/uploadResumeStore';
import { TRANSFERS_PANEL, TRANSFERS_VIEW_TYPE } from './descriptor';
import type { TransfersPanel } from './transfersPanel';
import { registerTransferRunners } from './runners';
import { TransfersStatusBar } from './statusBar';

/** The panel host and its message schemas load when a panel first opens (a bundle of their own). */
const panelModule = () => import('./transfersPanel.js');

class TransfersPanels implements vscode.WebviewPanelSerializer {
  current: TransfersPanel | undefined;

  constructor(private readonly services: ExtensionServices, private readonly events: TransferEvents) {}

  async open(): Promise<TransfersPanel> {
    const { TransfersPanel: Panel, webviewOptions } = await panelModule();
    if (this.current) {
      this.current.panel.reveal();
      return this.current;
    }
    const panel = vscode.window.createWebviewPanel(TRANSFERS_VIEW_TYPE, TRANSFERS_PANEL.title, vscode.ViewColumn.Active, webviewOptions(this.services.context.extensionUri));
    return this.adopt(panel, Panel);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    // The webview draws its saved list at once; `ready` brings the current one.
    this.adopt(panel, (await panelModule()).TransfersPanel);
  }

  private adopt(panel: vscode.WebviewPanel, Panel: typeof TransfersPanel): TransfersPanel {
    this.current?.dispose();
    panel.iconPath = vscode.Uri.joinPath(this.services.context.extensionUri, 'media', 'firecrest.svg');
    const host = new Panel(panel, this.services, this.events);
    this.current = host;
    host.onDidDispose(() => {
      if (this.current === host) this.current = undefined;
    });
    return host;
  }

  dispose(): void {
    this.current?.dispose();
  }
}

/** `interrupted`: the uploads whose parts are kept, for Resume (UploadResumeStore.list). */
export function registerTransfers(services: ExtensionServices, events: TransferEvents, interrupted?: () => InterruptedUpload[]): vscode.Disposable {
  const log = services.log.withTag('transfers');
  const panels = new TransfersPanels(services, events);
  const statusBar = new TransfersStatusBar(events, 'firecrest.showTransfers');
  const disposables: vscode.Disposable[] = [
    panels,
    statusBar,
    registerTransferRunners(events, interrupted),
    vscode.window.registerWebviewPanelSerializer(TRANSFERS_VIEW_TYPE, panels),
    registerCommand('firecrest.showTransfers', log, () => panels.open()),
    registerCommand('firecrest.transfers.clear', log, async () => {
      const ids = await events.clear();
      log.info(`cleared ${ids.length} finished transfer(s)`);
    }),
  ];
  if (services.context.extensionMode !== vscode.ExtensionMode.Production) {
    // Host tests drive the real panel through these handles (same extension host: no serialisation).
    disposables.push(
      vscode.commands.registerCommand('firecrest.test.transfersPanel', () => panels.current),
      vscode.commands.registerCommand('firecrest.test.transferEvents', () => events),
      vscode.commands.registerCommand('firecrest.test.transfersStatusBar', () => statusBar),
      vscode.commands.registerCommand('firecrest.test.transfersRestore', async (options: vscode.WebviewPanelOptions & vscode.WebviewOptions) => {
        await panels.deserializeWebviewPanel(vscode.window.createWebviewPanel(TRANSFERS_VIEW_TYPE, TRANSFERS_PANEL.title, vscode.ViewColumn.Active, options));
        return panels.current;
      }),
    );
  }
  return vscode.Disposable.from(...disposables);
}
