/**
 * The Transfer Centre's host side: sends the list on `ready`, then every (throttled) change from
 * TransferEvents while the webview listens, and carries out Cancel, Retry, Resume, Open Destination
 * and Clear. One panel at a time (see `register.ts`).
 */
import * as vscode from 'vscode';
import type { TransferEvents } from '../../common/transferEvents';
import type { ExtensionServices } from '../../common/services';
import { WebviewPanelHost } from '../panelHost';
import { TRANSFERS_PANEL } from './descriptor';
import type { TransferAction, TransfersToHost, TransfersToWebview, TransferView } from '../protocol';
import { transfersToHost } from './messages';
import { openDestination } from './openDestination';
import { toTransferView } from './view';
import { messageOf } from '../../core/errors';

/** For the register module, which gets this module through import() only. */
export { webviewOptions } from '../panelHost';

type Rendered = Extract<TransfersToHost, { type: 'rendered' }>;

export class TransfersPanel extends WebviewPanelHost<TransfersToHost, TransfersToWebview> {
  private lastRendered: Rendered['rows'] = [];

  constructor(panel: vscode.WebviewPanel, services: ExtensionServices, private readonly events: TransferEvents) {
    super(panel, services.context.extensionUri, TRANSFERS_PANEL, transfersToHost, services.log.withTag('transfers'));
    this._register(
      events.onDidChange((e) => {
        // While hidden nothing queues up: `ready` brings the whole list when it is shown again.
        if (!this.isReady) return;
        void this.post({ type: 'update', transfers: e.changed.map((r) => this.view(r.id)).filter((v): v is TransferView => !!v), removed: [...e.removed] });
      }),
    );
  }

  /** The rows as the webview last reported drawing them. */
  get rendered(): Rendered['rows'] {
    return this.lastRendered;
  }

  private view(id: number): TransferView | undefined {
    const r = this.events.get(id);
    return r && toTransferView(r, this.events.actions(r));
  }

  private all(): TransferView[] {
    return this.events.list().map((r) => toTransferView(r, this.events.actions(r)));
  }

  protected override async onReady(): Promise<void> {
    await this.post({ type: 'init', transfers: this.all() });
  }

  protected override async handle(m: TransfersToHost): Promise<void> {
    switch (m.type) {
      case 'action':
        return this.act(m.requestId, m.action, m.id);
      case 'clear': {
        const ids = await this.events.clear();
        this.log.info(`cleared ${ids.length} finished transfer(s)`);
        await this.post({ type: 'done', requestId: m.requestId });
        return;
      }
      case 'rendered':
        this.lastRendered = m.rows;
        return;
      case 'ready':
        return;
    }
  }

  private async act(requestId: number, action: TransferAction, id: number): Promise<void> {
    const record = this.events.get(id);
    if (!record) return this.post({ type: 'done', requestId, error: vscode.l10n.t('This transfer is no longer listed.') });
    try {
      switch (action) {
        case 'cancel':
          if (!this.events.cancel(id)) throw new Error(vscode.l10n.t('The transfer is not running any more.'));
          break;
        case 'retry':
        case 'resume': {
          // Answer once the new run has started (its record replaces this one); it may run for long.
          const run = this.events.retry(id, action === 'resume');
          run.catch((e: unknown) => this.log.warn(`${action} of transfer ${id} failed: ${messageOf(e)}`));
          await Promise.race([run, new Promise((r) => setTimeout(r, 0))]);
          break;
        }
        case 'open':
          await openDestination(record);
          break;
      }
      await this.post({ type: 'done', requestId });
    } catch (e) {
      await this.post({ type: 'done', requestId, error: messageOf(e) });
    }
  }
}
