/**
 * The Job Accounting webview: the form, the status line (loading, empty and error states with
 * what to do next), the summary, the charts and the table. Everything it shows is kept in
 * `setState`, so a hidden-then-shown or restored panel comes back as it was.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { AccountingConnection, AccountingFailure, AccountingToHost, AccountingToWebview, AccountingViewState } from '../../src/webviews/protocol';
import { el, replace } from '../shared/dom';
import { vscodeApi } from '../shared/vscodeApi';
import { createQueryForm } from './form';
import { renderSummary } from './summary';
import { visibleRows } from './rows';
import { renderTable } from './table';

const api = vscodeApi<AccountingToHost, AccountingViewState>();

const EMPTY_FORM: AccountingViewState['form'] = {
  profile: '', system: '', range: '7d', from: '', to: '', jobIds: '', state: '', account: '', partition: '', name: '', allUsers: false,
};
let state: AccountingViewState = api.state() ?? { form: EMPTY_FORM, sort: { column: 'id', descending: true }, filter: '', page: 0 };
let connections: AccountingConnection[] = [];
/** The request whose answer we wait for; older answers are dropped. */
let pending: number | undefined;
let nextRequestId = (state.results?.requestId ?? 0) + 1;
let problem: { failure: AccountingFailure; message: string } | undefined;
let notice = '';

const form = createQueryForm({ submit: () => query(), export: () => exportCsv() });
const status = el('section', { class: 'status', 'aria-live': 'polite' });
const summary = el('section', { class: 'summary', 'aria-label': 'Summary' });
const filter = el<HTMLElement & { value: string }>('vscode-textfield', { placeholder: 'Filter rows', 'aria-label': 'Filter rows', class: 'filter' });
const table = el('section', { class: 'table', 'aria-label': 'Jobs' });
/** Efficiency: the use of the finished jobs shown (at most 200), from one short job on the cluster. */
const efficiencyButton = el<HTMLElement & { disabled: boolean }>('vscode-button', { secondary: true, title: 'What the finished jobs shown used of what they asked for: CPU, memory, time (one short job on the cluster)' }, 'Efficiency');
let efficiencyPending: number | undefined;
efficiencyButton.addEventListener('click', () => askEfficiency());
const results = el('div', { class: 'results-area', hidden: true }, summary, el('div', { class: 'table-tools' }, efficiencyButton, filter), table);

const MAX_EFFICIENCY_JOBS = 200;

function askEfficiency(): void {
  const r = state.results;
  if (!r || efficiencyPending !== undefined) return;
  const ids = visibleRows(r.rows, state).filter((x) => x.stateClass !== 'pending' && x.stateClass !== 'running').slice(0, MAX_EFFICIENCY_JOBS).map((x) => x.id);
  if (!ids.length) {
    notice = 'no finished job shown to ask about';
    drawStatus();
    return;
  }
  efficiencyPending = nextRequestId++;
  efficiencyButton.disabled = true;
  notice = `reading the use of ${ids.length} job(s) (a short job on the cluster)…`;
  drawStatus();
  api.post({ type: 'efficiency', requestId: efficiencyPending, ids });
}

filter.addEventListener('input', () => {
  state = { ...state, filter: filter.value, page: 0 };
  save();
  drawTable();
});

function save(): void {
  api.saveState(state);
}

function query(): void {
  const f = form.read();
  state = { ...state, form: f, page: 0 };
  save();
  if (!f.system) {
    problem = connections.length ? { failure: 'signedOut', message: 'No system to query: sign in to a connection.' } : { failure: 'noConnection', message: 'No FirecREST connection is configured.' };
    drawStatus();
    return;
  }
  pending = nextRequestId++;
  problem = undefined;
  notice = '';
  form.setBusy(true);
  drawStatus();
  api.post({ type: 'query', requestId: pending, form: f });
}

function exportCsv(): void {
  if (!state.results) return;
  const ids = visibleRows(state.results.rows, state).map((r) => r.id);
  api.post({ type: 'export', requestId: nextRequestId++, ids });
}

function action(label: string, run: () => void, secondary = false): HTMLElement {
  const b = el('vscode-button', { secondary }, label);
  b.addEventListener('click', run);
  return b;
}

function drawStatus(): void {
  if (pending !== undefined) {
    replace(status, el('div', { class: 'loading' }, el('vscode-progress-ring', { 'aria-label': 'Loading' }), 'Querying job history…'));
    return;
  }
  if (problem) {
    const buttons = {
      noConnection: [action('Add Connection', () => api.post({ type: 'command', command: 'addConnection' }))],
      signedOut: [action('Sign In', () => api.post({ type: 'command', command: 'signIn' }))],
      invalid: [],
      api: [action('Retry', () => query())],
    }[problem.failure];
    const hint = {
      noConnection: 'Add a connection to a FirecREST deployment, then query its job history.',
      signedOut: 'Sign in to query the job history of this connection.',
      invalid: 'Correct the form and query again.',
      api: 'The server did not answer the query. Check the connection and retry.',
    }[problem.failure];
    replace(status, el('div', { class: `message ${problem.failure}`, role: 'alert' }, el('p', { class: 'headline' }, problem.message), el('p', {}, hint), el('div', { class: 'buttons' }, ...buttons)));
    return;
  }
  const r = state.results;
  if (r && r.rows.length === 0) {
    const widen = () => {
      form.write({ ...form.read(), range: '30d', from: '', to: '', jobIds: '', state: '', account: '', partition: '', name: '' });
      query();
    };
    replace(status, el('div', { class: 'message empty' }, el('p', { class: 'headline' }, `No jobs on ${r.system} match this query.`),
      el('p', {}, 'Widen the time range or clear the filters (job ids, state, account, partition, name).'),
      ...(r.limit ? [el('p', { class: 'limit' }, `${r.limit}.`)] : []),
      el('div', { class: 'buttons' }, action('Last 30 days, no filters', widen))));
    return;
  }
  replace(status, r ? el('p', { class: 'meta' }, `${r.profile} / ${r.system} · queried ${new Date(r.queriedAt).toLocaleTimeString()}`, r.limit ? ` · ${r.limit}` : '', notice ? ` · ${notice}` : '') : '');
}

function drawTable(): void {
  const r = state.results;
  if (!r) return;
  renderTable(table, r.rows, state, {
    change: (view) => {
      state = { ...state, ...view };
      save();
      drawTable();
    },
    open: (id, what) => api.post({ type: 'openJob', id, what }),
  });
}

function drawResults(): void {
  const r = state.results;
  const has = !!r && r.rows.length > 0 && !problem;
  results.toggleAttribute('hidden', !has);
  form.setExportable(has);
  if (!r || !has) return;
  renderSummary(summary, r.rows);
  filter.value = state.filter;
  drawTable();
}

function draw(): void {
  drawStatus();
  drawResults();
}

function onMessage(m: AccountingToWebview): void {
  switch (m.type) {
    case 'init': {
      connections = m.connections;
      const f = { ...state.form, ...m.preset };
      const known = connections.some((c) => c.profile === f.profile && c.systems.includes(f.system));
      const first = connections.find((c) => c.systems.length);
      if (!known) Object.assign(f, first ? { profile: first.profile, system: m.preset?.system && first.systems.includes(m.preset.system) ? m.preset.system : first.systems[0] } : { profile: '', system: '' });
      form.setConnections(connections, f);
      form.write(f);
      state = { ...state, form: f };
      save();
      if (!connections.length) problem = { failure: 'noConnection', message: 'No FirecREST connection is configured.' };
      else if (!first) problem = { failure: 'signedOut', message: connections.find((c) => c.error)?.error ?? 'You are signed out of every connection.' };
      else if (problem && problem.failure !== 'api') problem = undefined;
      // A first open (or an open for a named system) runs the query at once.
      if (first && (m.preset?.system || !state.results) && pending === undefined) {
        query();
        return;
      }
      draw();
      // Shown again (or restored) from saved state: say which answer is on screen.
      if (state.results && !problem) api.post({ type: 'rendered', requestId: state.results.requestId, rows: table.querySelectorAll('tbody tr').length });
      return;
    }
    case 'results':
      if (m.requestId !== pending) return;
      pending = undefined;
      problem = undefined;
      form.setBusy(false);
      state = { ...state, results: m, page: 0 };
      save();
      draw();
      api.post({ type: 'rendered', requestId: m.requestId, rows: table.querySelectorAll('tbody tr').length });
      return;
    case 'failed':
      if (m.requestId !== pending) return;
      pending = undefined;
      form.setBusy(false);
      problem = { failure: m.failure, message: m.message };
      draw();
      return;
    case 'efficiency': {
      if (m.requestId !== efficiencyPending) return;
      efficiencyPending = undefined;
      efficiencyButton.disabled = false;
      const r = state.results;
      if (m.error || !r) {
        notice = `no efficiency: ${m.error ?? 'no results'}`;
        drawStatus();
        return;
      }
      const by = new Map(m.rows.map((e) => [e.id, e]));
      const rows = r.rows.map((row) => {
        const e = by.get(row.id);
        return e ? { ...row, cpuEfficiency: e.cpuEfficiency, memoryEfficiency: e.memoryEfficiency, timeUsed: e.timeUsed } : row;
      });
      state = { ...state, results: { ...r, rows } };
      save();
      notice = `efficiency of ${m.rows.length} job(s)${m.usageRecorded === false ? ': this cluster records no memory and CPU use, only times' : ''}`;
      draw();
      api.post({ type: 'rendered', requestId: r.requestId, rows: table.querySelectorAll('tbody tr').length });
      return;
    }
    case 'exported':
      notice = m.error ? `export failed: ${m.error}` : m.path ? `saved ${m.path}` : '';
      drawStatus();
      return;
  }
}

const app = document.getElementById('app')!;
replace(app, el('header', {}, el('h1', {}, 'Job Accounting')), form.root, status, results);
app.removeAttribute('aria-busy');
form.write(state.form);
draw();
window.addEventListener('message', (e: MessageEvent<AccountingToWebview>) => onMessage(e.data));
api.post({ type: 'ready' });
