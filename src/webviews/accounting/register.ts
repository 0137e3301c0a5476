/**
 * `firecrest.jobAccounting`: opens (or reveals) the one Job Accounting panel, from the palette or a
 * system node of the Systems tree, and restores it after a window reload.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../../common/commandWrapper';
import type { ExtensionServices } from '../../common/services';
import type { AccountingForm } from '../protocol';
import type { AccountingPanel } from './accountingPanel';
import { fields, text } from '../../common/commandArgs';
import { PanelSlot } from '../panelSlot';
import { ACCOUNTING_PANEL, ACCOUNTING_VIEW_TYPE } from './descriptor';

/** The panel host and its message schemas load when a panel first opens (a bundle of their own). */
const panelModule = () => import('./accountingPanel.js');

/** `{system, profile}` or a Systems tree node (`{kind: 'system', profile, system: {name}}`). */
export function presetFromArg(arg: unknown): Partial<AccountingForm> | undefined {
  const o = fields(arg, { profile: text, system: (v) => text(v) ?? fields(v, { name: text }).name });
  if (!o.system) return undefined;
  return { system: o.system, ...(o.profile ? { profile: o.profile } : {}) };
}

export function registerAccounting(services: ExtensionServices): vscode.Disposable {
  const log = services.log.withTag('accounting');
  const panels = new PanelSlot<AccountingPanel, Partial<AccountingForm>>(ACCOUNTING_PANEL, services.context.extensionUri, async () => {
    const { AccountingPanel: Panel, webviewOptions } = await panelModule();
    return { webviewOptions, create: (panel, preset) => new Panel(panel, services, preset) };
  });
  const disposables: vscode.Disposable[] = [
    panels,
    vscode.window.registerWebviewPanelSerializer(ACCOUNTING_VIEW_TYPE, panels),
    registerCommand('firecrest.jobAccounting', log, async (arg?: unknown) => {
      const preset = presetFromArg(arg);
      const { host, opened } = await panels.open(preset);
      if (!opened && preset) await host.select(preset);
      return host;
    }),
  ];
  // Host tests drive the real panel through this handle (same extension host: no serialisation).
  services.testSeam.expose('accountingPanel', () => panels.current);
  services.testSeam.expose('accountingRestore', (options: vscode.WebviewPanelOptions & vscode.WebviewOptions) => panels.restoreWith(options));
  return vscode.Disposable.from(...disposables);
}
