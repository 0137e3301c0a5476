/**
 * One panel of a kind at a time: a command opens it or reveals the open one, and VS Code hands a
 * saved panel back after a window reload (the slot is the kind's serializer). The panel's own module
 * (its host class, message schemas) is loaded only when a panel first opens.
 */
import * as vscode from 'vscode';

/** What the slot needs of a panel host. */
export interface SlotPanel extends vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  readonly onDidDispose: vscode.Event<void>;
}

/** The lazily loaded half: how to make a host for a webview panel, and the options to create one with. */
export interface PanelFactory<P extends SlotPanel, A> {
  create(panel: vscode.WebviewPanel, arg?: A): P;
  webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions;
}

export class PanelSlot<P extends SlotPanel, A = never> implements vscode.WebviewPanelSerializer, vscode.Disposable {
  current: P | undefined;

  constructor(
    private readonly kind: { viewType: string; title: string },
    private readonly extensionUri: vscode.Uri,
    private readonly load: () => Promise<PanelFactory<P, A>>,
  ) {}

  /** Reveals the open panel (`opened: false`) or opens a new one with `arg`. */
  async open(arg?: A): Promise<{ host: P; opened: boolean }> {
    const factory = await this.load();
    if (this.current) {
      this.current.panel.reveal();
      return { host: this.current, opened: false };
    }
    const panel = vscode.window.createWebviewPanel(this.kind.viewType, this.kind.title, vscode.ViewColumn.Active, factory.webviewOptions(this.extensionUri));
    return { host: this.adopt(panel, factory, arg), opened: true };
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    // The webview restores what it showed from its own saved state.
    this.adopt(panel, await this.load());
  }

  /** What a window reload does, for tests: VS Code makes a panel with the options it saved, then asks us. */
  async restoreWith(options: vscode.WebviewPanelOptions & vscode.WebviewOptions): Promise<P | undefined> {
    await this.deserializeWebviewPanel(vscode.window.createWebviewPanel(this.kind.viewType, this.kind.title, vscode.ViewColumn.Active, options));
    return this.current;
  }

  private adopt(panel: vscode.WebviewPanel, factory: PanelFactory<P, A>, arg?: A): P {
    this.current?.dispose();
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'firecrest.svg');
    const host = factory.create(panel, arg);
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
