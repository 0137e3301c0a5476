/**
 * The summary above the table: jobs by state, node-hours per account and partition, and the two
 * charts (each figure with a caption; the SVGs carry their own text alternative).
 */
import type { AccountingRow } from '../../src/webviews/protocol';
import { el, replace } from '../shared/dom';
import { efficiencyChart, jobsOverTimeChart, nodeHoursChart } from './charts';
import { STATE_ORDER, formatHours, nodeHours, nodeHoursBy, totalsByState } from './stats';

function hoursTable(caption: string, rows: AccountingRow[], key: 'account' | 'partition'): HTMLElement {
  return el('table', { class: 'mini' },
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, key === 'account' ? 'Account' : 'Partition'), el('th', { scope: 'col', class: 'num' }, 'Jobs'), el('th', { scope: 'col', class: 'num' }, 'Node-hours'))),
    el('tbody', {}, ...nodeHoursBy(rows, key).slice(0, 8).map((e) => el('tr', {}, el('td', {}, e.key), el('td', { class: 'num' }, e.jobs), el('td', { class: 'num' }, formatHours(e.hours))))));
}

export function renderSummary(host: HTMLElement, rows: AccountingRow[]): void {
  const totals = totalsByState(rows);
  const total = rows.reduce((s, r) => s + nodeHours(r), 0);
  const chips = el('ul', { class: 'chips', 'aria-label': 'Jobs by state' },
    el('li', { class: 'chip total' }, el('strong', {}, rows.length), ' jobs'),
    ...STATE_ORDER.filter((s) => totals.get(s)).map((s) => el('li', { class: `chip state-${s}` }, el('span', { class: 'dot', 'aria-hidden': 'true' }), el('strong', {}, totals.get(s) ?? 0), ` ${s}`)),
    el('li', { class: 'chip' }, el('strong', {}, formatHours(total)), ' node-hours'));
  const legend = el('ul', { class: 'legend', 'aria-hidden': 'true' }, ...STATE_ORDER.filter((s) => totals.get(s)).map((s) => el('li', { class: `state-${s}` }, el('span', { class: 'dot' }), s)));
  replace(host,
    chips,
    el('div', { class: 'charts' },
      el('figure', {}, jobsOverTimeChart(rows), el('figcaption', {}, legend)),
      el('figure', {}, nodeHoursChart(rows), el('figcaption', {}, 'Node-hours (nodes × elapsed) by partition')),
      ...(rows.some((r) => r.cpuEfficiency !== undefined || r.memoryEfficiency !== undefined || r.timeUsed !== undefined)
        ? [el('figure', { class: 'efficiency' }, efficiencyChart(rows), el('figcaption', {}, 'Dots under 25% mark jobs that asked for four times what they used; the line is the median'))]
        : [])),
    el('div', { class: 'hours' }, hoursTable('Node-hours per account', rows, 'account'), hoursTable('Node-hours per partition', rows, 'partition')));
}
