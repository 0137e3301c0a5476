/**
 * The results table: sortable by any column (header buttons, aria-sort), filtered by free text,
 * paged on the client. Rows are focusable; Enter or a click opens the job's details, `o` its
 * output, arrow keys move between rows.
 */
import type { AccountingRow } from '../../src/webviews/protocol';
import { el, replace } from '../shared/dom';
import { visibleRows, type TableView } from './rows';
import { formatElapsed, formatTime } from './stats';

export const PAGE_SIZE = 100;

type Column = { key: keyof AccountingRow; label: string; numeric?: boolean; format?: (r: AccountingRow) => string };

const COLUMNS: Column[] = [
  { key: 'id', label: 'Job ID', numeric: true },
  { key: 'name', label: 'Name' },
  { key: 'state', label: 'State' },
  { key: 'partition', label: 'Partition' },
  { key: 'account', label: 'Account' },
  { key: 'nodes', label: 'Nodes', numeric: true },
  { key: 'submit', label: 'Submit', format: (r) => formatTime(r.submit) },
  { key: 'start', label: 'Start', format: (r) => formatTime(r.start) },
  { key: 'end', label: 'End', format: (r) => formatTime(r.end) },
  { key: 'elapsed', label: 'Elapsed', numeric: true, format: (r) => formatElapsed(r.elapsed) },
  { key: 'exitCode', label: 'Exit', numeric: true },
  // Filled by Efficiency (one short job on the cluster): what the job used of what it asked for.
  { key: 'cpuEfficiency', label: 'CPU %', numeric: true, format: (r) => percent(r.cpuEfficiency) },
  { key: 'memoryEfficiency', label: 'Memory %', numeric: true, format: (r) => percent(r.memoryEfficiency) },
  { key: 'timeUsed', label: 'Time %', numeric: true, format: (r) => percent(r.timeUsed) },
];

function percent(v: number | undefined): string {
  return v === undefined ? '' : `${Math.round(v * 100)}%`;
}

export function renderTable(
  host: HTMLElement,
  rows: AccountingRow[],
  view: TableView,
  on: { change(view: TableView): void; open(id: string, what: 'details' | 'output'): void },
): void {
  const shown = visibleRows(rows, view);
  // A column no row fills (v2 has no submit time) only costs width: leave it out.
  const columns = COLUMNS.filter((c) => c.key === 'id' || c.key === 'name' || c.key === 'state' || rows.some((r) => r[c.key] !== undefined));
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = Math.min(view.page, pages - 1);
  const slice = shown.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);

  const head = el('tr', {}, ...columns.map((c) => {
    const active = view.sort.column === c.key;
    const button = el('button', { class: 'sort', type: 'button', title: `Sort by ${c.label}` }, c.label, active ? (view.sort.descending ? ' ▼' : ' ▲') : '');
    button.addEventListener('click', () => on.change({ ...view, page: 0, sort: { column: c.key, descending: active ? !view.sort.descending : c.numeric === true } }));
    return el('th', { scope: 'col', class: c.numeric ? 'num' : undefined, 'aria-sort': active ? (view.sort.descending ? 'descending' : 'ascending') : 'none' }, button);
  }), el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, 'Actions')));

  const body = el('tbody');
  // One tab stop for the whole body (roving tabindex): Tab leaves the table, arrows move inside.
  const move = (from: HTMLElement, to: Element | null) => {
    if (!(to instanceof HTMLElement)) return;
    from.tabIndex = -1;
    to.tabIndex = 0;
    to.focus();
  };
  for (const [i, r] of slice.entries()) {
    const output = el('button', { class: 'link', type: 'button', title: `Open the output of job ${r.id}`, tabindex: -1 }, 'Output');
    output.addEventListener('click', (e) => {
      e.stopPropagation();
      on.open(r.id, 'output');
    });
    const tr = el('tr', { tabindex: i === 0 ? 0 : -1, 'data-id': r.id, 'aria-label': `Job ${r.id} ${r.name}, ${r.state}. Enter: details, O: output.` },
      ...columns.map((c) => el('td', { class: [c.numeric ? 'num' : '', c.key === 'state' ? `state state-${r.stateClass}` : ''].join(' ').trim() || undefined },
        c.format ? c.format(r) : r[c.key] === undefined ? '' : String(r[c.key]))),
      el('td', {}, output));
    tr.addEventListener('click', () => on.open(r.id, 'details'));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') on.open(r.id, 'details');
      else if (e.key === 'o' || e.key === 'O') on.open(r.id, 'output');
      else if (e.key === 'ArrowDown') move(tr, tr.nextElementSibling);
      else if (e.key === 'ArrowUp') move(tr, tr.previousElementSibling);
      else if (e.key === 'Home') move(tr, body.firstElementChild);
      else if (e.key === 'End') move(tr, body.lastElementChild);
      else return;
      e.preventDefault();
    });
    body.append(tr);
  }

  const first = shown.length ? page * PAGE_SIZE + 1 : 0;
  const prev = el('vscode-button', { secondary: true, disabled: page === 0 }, 'Previous');
  const next = el('vscode-button', { secondary: true, disabled: page >= pages - 1 }, 'Next');
  prev.addEventListener('click', () => page > 0 && on.change({ ...view, page: page - 1 }));
  next.addEventListener('click', () => page < pages - 1 && on.change({ ...view, page: page + 1 }));
  const pager = el('div', { class: 'pager', role: 'navigation', 'aria-label': 'Result pages' },
    el('span', { 'aria-live': 'polite' }, `Jobs ${first}–${first + slice.length - (shown.length ? 1 : 0)} of ${shown.length}${shown.length !== rows.length ? ` (filtered from ${rows.length})` : ''}`),
    prev, next);

  replace(host,
    el('div', { class: 'table-scroll' }, el('table', { class: 'results', 'aria-label': 'Jobs' }, el('thead', {}, head), body)),
    pages > 1 || shown.length !== rows.length ? pager : el('div', { class: 'pager' }, `${rows.length} jobs`));
}
