/**
 * What identifies the Job Accounting panel. Apart from the panel host (accountingPanel.ts), which
 * loads on first use, so that registering the panel at activation does not load it.
 */
import * as l10n from '@vscode/l10n';
import type { PanelDescriptor } from '../panelHost';

export const ACCOUNTING_VIEW_TYPE = 'firecrest.accounting';

export const ACCOUNTING_PANEL: PanelDescriptor = {
  viewType: ACCOUNTING_VIEW_TYPE,
  /** Read when a panel opens, so in the display language (activation has configured l10n by then). */
  get title() {
    return l10n.t('Job Accounting');
  },
  bundle: 'webview-accounting.js',
  styles: ['media/webviews/accounting.css'],
};
