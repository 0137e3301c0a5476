/**
 * The base of every webview panel: HTML with a strict CSP, resources limited to the bundle, the
 * `ready` handshake, and validation of every message the webview sends. Subclasses handle typed
 * messages only; anything of the wrong shape is logged and dropped here.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import { Disposable } from '../common/lifecycle';
import type { Log } from '../common/services';
import { buildWebviewHtml, makeNonce } from './html';
import { messageOf } from '../core/errors';

export interface PanelDescriptor {
  viewType: string;
  title: string;
  /** File name of the esbuild bundle in dist/, e.g. `webview-accounting.js`. */
  bundle: string;
  /** Stylesheets relative to the extension root, e.g. `media/webviews/accounting.css`. */
  styles: string[];
}

/** The folders a webview may load from: the bundles and our own stylesheets, nothing else. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media', 'webviews')],
  };
}

export abstract class WebviewPanelHost<In extends { type: string }, Out extends { type: string }> extends Disposable {
  /** Until the webview says `ready` (again, after being hidden), posts wait here. */
  private pending: Out[] = [];
  private ready = false;
  private readonly didPost = this._register(new vscode.EventEmitter<Out>());
  private readonly didReceive = this._register(new vscode.EventEmitter<In>());
  private readonly didDispose = this._register(new vscode.EventEmitter<void>());
  /** Every message delivered to the webview (tests await results through this). */
  readonly onDidPost = this.didPost.event;
  /** Every valid message the webview sent, after its handler ran. */
  readonly onDidReceive = this.didReceive.event;
  readonly onDidDispose = this.didDispose.event;

  protected constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly descriptor: PanelDescriptor,
    private readonly schema: z.ZodType<In>,
    protected readonly log: Log,
  ) {
    super();
    // A restored panel keeps the options it was saved with; set ours so old ones cannot widen them.
    panel.webview.options = webviewOptions(extensionUri);
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)));
    this._register(
      panel.onDidChangeViewState(() => {
        // Without retainContextWhenHidden the page is torn down when hidden; it says ready again.
        if (!panel.visible) this.ready = false;
      }),
    );
    this._register(panel.onDidDispose(() => this.dispose()));
    this.render();
  }

  get isReady(): boolean {
    return this.ready;
  }

  private render(): void {
    const webview = this.panel.webview;
    const asUri = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...p)).toString();
    webview.html = buildWebviewHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: asUri('dist', this.descriptor.bundle),
      styleUris: this.descriptor.styles.map((s) => asUri(...s.split('/'))),
      title: this.descriptor.title,
      bodyData: { panel: this.descriptor.viewType },
    });
  }

  /** Sends now when the webview listens, otherwise as soon as it says `ready`. */
  async post(message: Out): Promise<void> {
    if (!this.ready) {
      this.pending.push(message);
      return;
    }
    const delivered = await this.panel.webview.postMessage(message);
    if (delivered) this.didPost.fire(message);
    else this.pending.push(message);
  }

  /**
   * Everything the webview sends enters here (also the host tests' seam): validated first, so a
   * handler never sees a message of the wrong shape.
   */
  async receive(raw: unknown): Promise<boolean> {
    const parsed = this.schema.safeParse(raw);
    if (!parsed.success) {
      const type = raw && typeof raw === 'object' && 'type' in raw ? String((raw).type) : typeof raw;
      this.log.warn(`${this.descriptor.viewType}: rejected a message of the wrong shape (type ${type.slice(0, 40)}): ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return false;
    }
    const message = parsed.data;
    try {
      if (message.type === 'ready') {
        this.ready = true;
        const queued = this.pending;
        this.pending = [];
        await this.onReady();
        for (const m of queued) await this.post(m);
      } else {
        await this.handle(message);
      }
    } catch (e) {
      this.log.error(`${this.descriptor.viewType}: handling ${message.type} failed: ${messageOf(e)}`);
    }
    this.didReceive.fire(message);
    return true;
  }

  /** The webview (re)started: send it what it needs to draw. */
  protected abstract onReady(): Promise<void> | void;
  protected abstract handle(message: In): Promise<void> | void;

  override dispose(): void {
    if (this.isDisposed) return;
    this.didDispose.fire();
    super.dispose();
    this.panel.dispose();
  }
}
