/**
 * `firecrest.jobAccounting`: opens (or reveals) the one Job Accounting panel, from the palette or a
 * system node of the Systems tree, and restores it after a window reload.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../../common/commandWrapper';
import type { ExtensionServices } from '../../common/services';
import type { AccountingForm } from '../protocol';
import type { AccountingPanel } from './accountingPanel';
import { ACCOUNTING_PANEL, ACCOUNTING_VIEW_TYPE } from './descriptor';

/** The panel host and its message schemas load when a panel first opens (a bundle of their own). */
const panelModule = () => import('./accountingPanel.js');

/** `{system, profile}` or a Systems tree node (`{kind: 'system', profile, system: {name}}`). */
export function presetFromArg(arg: unknown): Partial<AccountingForm> | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as { profile?: unknown; system?: unknown };
  const system = typeof o.system === 'string' ? o.system : o.system && typeof o.system === 'object' ? (o.system as { name?: unknown }).name : undefined;
  if (typeof system !== 'string') return undefined;
  return { system, ...(typeof o.profile === 'string' ? { profile: o.profile } : {}) };
}

class AccountingPanels implements vscode.WebviewPanelSerializer {
  current: AccountingPanel | undefined;

  constructor(private readonly services: ExtensionServices) {}

  async open(arg?: unknown): Promise<AccountingPanel> {
    const preset = presetFromArg(arg);
    const { AccountingPanel: Panel, webviewOptions } = await panelModule();
    if (this.current) {
      this.current.panel.reveal();
      if (preset) await this.current.select(preset);
      return this.current;
    }
    const panel = vscode.window.createWebviewPanel(ACCOUNTING_VIEW_TYPE, ACCOUNTING_PANEL.title, vscode.ViewColumn.Active, webviewOptions(this.services.context.extensionUri));
    return this.adopt(panel, Panel, preset);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    // The webview restores its form and results from its own saved state.
    this.adopt(panel, (await panelModule()).AccountingPanel);
  }

  private adopt(panel: vscode.WebviewPanel, Panel: typeof AccountingPanel, preset?: Partial<AccountingForm>): AccountingPanel {
    this.current?.dispose();
    panel.iconPath = vscode.Uri.joinPath(this.services.context.extensionUri, 'media', 'firecrest.svg');
    const host = new Panel(panel, this.services, preset);
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

export function registerAccounting(services: ExtensionServices): vscode.Disposable {
  const log = services.log.withTag('accounting');
  const panels = new AccountingPanels(services);
  const disposables: vscode.Disposable[] = [
    panels,
    vscode.window.registerWebviewPanelSerializer(ACCOUNTING_VIEW_TYPE, panels),
    registerCommand('firecrest.jobAccounting', log, (arg?: unknown) => panels.open(arg)),
  ];
  if (services.context.extensionMode !== vscode.ExtensionMode.Production) {
    // Host tests drive the real panel through this handle (same extension host: no serialisation).
    disposables.push(
      vscode.commands.registerCommand('firecrest.test.accountingPanel', () => panels.current),
      // What a window reload does: VS Code makes a panel with the options it saved, then asks us.
      vscode.commands.registerCommand('firecrest.test.accountingRestore', async (options: vscode.WebviewPanelOptions & vscode.WebviewOptions) => {
        await panels.deserializeWebviewPanel(vscode.window.createWebviewPanel(ACCOUNTING_VIEW_TYPE, ACCOUNTING_PANEL.title, vscode.ViewColumn.Active, options));
        return panels.current;
      }),
    );
  }
  return vscode.Disposable.from(...disposables);
}
