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
import { PanelSlot } from '../panelSlot';
import { TRANSFERS_PANEL, TRANSFERS_VIEW_TYPE } from './descriptor';
import type { TransfersPanel } from './transfersPanel';
import { registerTransferRunners } from './runners';
import { TransfersStatusBar } from './statusBar';

/** The panel host and its message schemas load when a panel first opens (a bundle of their own). */
const panelModule = () => import('./transfersPanel.js');

/** `interrupted`: the uploads whose parts are kept, for Resume (UploadResumeStore.list). */
export function registerTransfers(services: ExtensionServices, events: TransferEvents, interrupted?: () => InterruptedUpload[]): vscode.Disposable {
  const log = services.log.withTag('transfers');
  const panels = new PanelSlot<TransfersPanel>(TRANSFERS_PANEL, services.context.extensionUri, async () => {
    const { TransfersPanel: Panel, webviewOptions } = await panelModule();
    return { webviewOptions, create: (panel) => new Panel(panel, services, events) };
  });
  const statusBar = new TransfersStatusBar(events, 'firecrest.showTransfers');
  const disposables: vscode.Disposable[] = [
    panels,
    statusBar,
    registerTransferRunners(events, interrupted),
    vscode.window.registerWebviewPanelSerializer(TRANSFERS_VIEW_TYPE, panels),
    registerCommand('firecrest.showTransfers', log, async () => (await panels.open()).host),
    registerCommand('firecrest.transfers.clear', log, async () => {
      const ids = await events.clear();
      log.info(`cleared ${ids.length} finished transfer(s)`);
    }),
  ];
  // Host tests drive the real panel through these handles (same extension host: no serialisation).
  services.testSeam.expose('transfersPanel', () => panels.current);
  services.testSeam.expose('transferEvents', () => events);
  services.testSeam.expose('transfersStatusBar', () => statusBar);
  services.testSeam.expose('transfersRestore', (options: vscode.WebviewPanelOptions & vscode.WebviewOptions) => panels.restoreWith(options));
  return vscode.Disposable.from(...disposables);
}
