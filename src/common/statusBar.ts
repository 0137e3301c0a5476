/**
 * One status bar item: the state of the default connection (signed out, connecting, connected
 * with the server version, error). Clicking it opens the log, where the details are.
 */
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { ConnectionInfo, ConnectionService } from './services';

export const STATUS_BAR_ID = 'firecrest.status';

export class ConnectionStatusBar extends Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(private readonly connections: ConnectionService, showLogCommand: string) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Left, 50));
    this.item.name = 'FirecREST';
    this.item.command = showLogCommand;
    this._register(connections.onDidChange(() => this.update()));
    this.update();
  }

  /** The text currently shown; the host tests read it. */
  get text(): string {
    return this.item.text;
  }

  private update(): void {
    const all = this.connections.connections();
    const name = this.connections.defaultProfileName();
    const info = all.find((c) => c.profile.name === name);
    if (!info) {
      this.item.hide();
      return;
    }
    const { text, tooltip, error } = describe(info);
    this.item.text = all.length > 1 ? `${text} (+${all.length - 1})` : text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }
}

function describe(info: ConnectionInfo): { text: string; tooltip: string; error: boolean } {
  const name = info.profile.name;
  const where = info.profile.url;
  switch (info.state) {
    case 'signed-out':
      return { text: `$(sign-in) FirecREST: ${name} (signed out)`, tooltip: vscode.l10n.t('Signed out of {0} ({1}). Run "FirecREST: Sign In".', name, where), error: false };
    case 'connecting':
      return { text: `$(sync~spin) FirecREST: ${name}`, tooltip: vscode.l10n.t('Connecting to {0} ({1})…', name, where), error: false };
    case 'connected': {
      const version = info.serverVersion ? ` (${info.serverVersion})` : '';
      return { text: `$(server-environment) FirecREST: ${name}${version}`, tooltip: vscode.l10n.t('Connected to {0} ({1}){2}. Click to show the log.', name, where, version), error: false };
    }
    case 'reconnecting':
      return { text: `$(sync~spin) FirecREST: ${name} (reconnecting…)`, tooltip: vscode.l10n.t('{0} ({1}) does not answer; trying again. Views refresh by themselves once it is back.', name, where), error: false };
    case 'error':
      return { text: `$(error) FirecREST: ${name}`, tooltip: vscode.l10n.t('{0}: {1}. Click to show the log.', name, info.error ?? 'connection failed'), error: true };
  }
}
