/**
 * What identifies the Transfer Centre panel. Apart from the panel host (transfersPanel.ts), which
 * loads on first use, so that registering the panel at activation does not load it.
 */
import type { PanelDescriptor } from '../panelHost';

export const TRANSFERS_VIEW_TYPE = 'firecrest.transfers';

export const TRANSFERS_PANEL: PanelDescriptor = {
  viewType: TRANSFERS_VIEW_TYPE,
  title: 'Transfers',
  bundle: 'webview-transfers.js',
  styles: ['media/webviews/transfers.css'],
};
