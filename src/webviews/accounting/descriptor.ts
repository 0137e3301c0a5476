/**
 * What identifies the Job Accounting panel. Apart from the panel host (accountingPanel.ts), which
 * loads on first use, so that registering the panel at activation does not load it.
 */
import type { PanelDescriptor } from '../panelHost';

export const ACCOUNTING_VIEW_TYPE = 'firecrest.accounting';

export const ACCOUNTING_PANEL: PanelDescriptor = {
  viewType: ACCOUNTING_VIEW_TYPE,
  title: 'Job Accounting',
  bundle: 'webview-accounting.js',
  styles: ['media/webviews/accounting.css'],
};
