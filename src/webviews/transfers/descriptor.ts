/**
 * What identifies the Transfer Centre panel. Apart from the panel host (transfersPanel.ts), which
 * loads on first use, so that registering the panel at activation does not load it.
 */
import * as l10n from '@vscode/l10n';
import type { PanelDescriptor } from '../panelHost';

export const TRANSFERS_VIEW_TYPE = 'firecrest.transfers';

export const TRANSFERS_PANEL: PanelDescriptor = {
  viewType: TRANSFERS_VIEW_TYPE,
  /** Read when a panel opens, so in the display language (activation has configured l10n by then). */
  get title() {
    return l10n.t('Transfers');
  },
  bundle: 'webview-transfers.js',
  styles: ['media/webviews/transfers.css'],
};
