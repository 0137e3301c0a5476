/**
 * The two charts as plain SVG: jobs over time stacked by state, and node-hours by partition.
 * Colours come from CSS classes bound to the editor's `--vscode-charts-*` variables (see
 * accounting.css), so they follow the theme; each chart has a title and a text description.
 */
import type { AccountingRow } from '../../src/webviews/protocol';
import { svg } from '../shared/dom';
import { STATE_ORDER, formatHours, jobsOverTime, nodeHoursBy } from './stats';

const W = 560;
const H = 200;
const PAD = { left: 36, right: 8, top: 26, bottom: 28 };
let ids = 0;

function frame(title: string, description: string, height = H): { root: SVGSVGElement } {
  const id = `chart-${++ids}`;
  const root = svg<SVGSVGElement>('svg', {
    viewBox: `0 0 ${W} ${height}`,
    class: 'chart',
    role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc`,
    preserveAspectRatio: 'xMinYMin meet',
  });
  root.append(svg('title', { id: `${id}-title` }, title), svg('desc', { id: `${id}-desc` }, description));
  // The title shown, not only announced.
  root.append(svg('text', { x: 0, y: 14, class: 'chart-title', 'aria-hidden': 'true' }, title));
  return { root };
}

/** Round axis maximum with 4 ticks. */
function niceMax(v: number): number {
  if (v <= 4) return 4;
  const pow = 10 ** Math.floor(Math.log10(v));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s * 4 >= v) ?? 10 * pow;
  return step * 4;
}

function yAxis(root: SVGSVGElement, max: number, format: (v: number) => string): void {
  const h = H - PAD.top - PAD.bottom;
  for (let i = 0; i <= 4; i++) {
    const y = PAD.top + h - (h * i) / 4;
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: 'grid' }));
    root.append(svg('text', { x: PAD.left - 4, y: y + 4, class: 'axis', 'text-anchor': 'end' }, format((max * i) / 4)));
  }
}

export function jobsOverTimeChart(rows: AccountingRow[]): SVGSVGElement {
  const { unit, buckets } = jobsOverTime(rows);
  const day = (d: Date) => d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const label = (t: number) => {
    const d = new Date(t * 1000);
    return unit === 'hour' ? `${day(d)} ${String(d.getHours()).padStart(2, '0')}:00` : day(d);
  };
  // Axis labels: hours carry their date where the day changes (and at the first label).
  const tick = (t: number, previous: number | undefined) => {
    const d = new Date(t * 1000);
    if (unit === 'day') return day(d);
    const hour = `${String(d.getHours()).padStart(2, '0')}:00`;
    return previous === undefined || new Date(previous * 1000).getDate() !== d.getDate() ? `${day(d)} ${hour}` : hour;
  };
  const busiest = [...buckets].sort((a, b) => b.total - a.total)[0];
  const description = buckets.length
    ? `${rows.length} jobs in ${buckets.length} ${unit}s; busiest ${unit} ${label(busiest.start)} with ${busiest.total} jobs.`
    : 'No jobs with a submit time.';
  const { root } = frame(`Jobs per ${unit} (submitted, else started), by state`, description);
  const max = niceMax(Math.max(0, ...buckets.map((b) => b.total)));
  yAxis(root, max, (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, buckets.length);
  const barW = Math.min(48, Math.max(2, slot * 0.7));
  const labelEvery = Math.ceil(buckets.length / 6);
  let labelled: number | undefined;
  buckets.forEach((b, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let y = PAD.top + plotH;
    for (const state of STATE_ORDER) {
      const n = b.counts.get(state) ?? 0;
      if (!n) continue;
      const hgt = (n / max) * plotH;
      y -= hgt;
      root.append(svg('rect', { x, y, width: barW, height: hgt, class: `bar state-${state}` }, svg('title', {}, `${label(b.start)}: ${n} ${state}`)));
    }
    if (i % labelEvery === 0) {
      root.append(svg('text', { x: x + barW / 2, y: H - PAD.bottom + 16, class: 'axis', 'text-anchor': 'middle' }, tick(b.start, labelled)));
      labelled = b.start;
    }
  });
  return root;
}

export function nodeHoursChart(rows: AccountingRow[]): SVGSVGElement {
  const parts = nodeHoursBy(rows, 'partition').slice(0, 12);
  const description = parts.length ? parts.map((p) => `${p.key}: ${formatHours(p.hours)} node-hours`).join('; ') : 'No node-hours.';
  const rowH = Math.min(28, (H - PAD.top - 8) / Math.max(1, parts.length));
  // As tall as its bars need, so a few partitions do not leave an empty box.
  const { root } = frame('Node-hours by partition', description, Math.max(60, PAD.top * 2 + rowH * parts.length));
  const max = Math.max(...parts.map((p) => p.hours), 0) || 1;
  const labelW = 110;
  const plotW = W - labelW - 70;
  parts.forEach((p, i) => {
    const y = PAD.top + i * rowH;
    const w = Math.max(1, (p.hours / max) * plotW);
    root.append(svg('text', { x: labelW - 6, y: y + rowH * 0.65, class: 'axis label', 'text-anchor': 'end' }, p.key));
    root.append(svg('rect', { x: labelW, y: y + rowH * 0.15, width: w, height: rowH * 0.7, class: 'bar partition' }, svg('title', {}, `${p.key}: ${formatHours(p.hours)} node-hours, ${p.jobs} jobs`)));
    root.append(svg('text', { x: labelW + w + 6, y: y + rowH * 0.65, class: 'axis' }, formatHours(p.hours)));
  });
  return root;
}

const METRICS: { key: 'cpuEfficiency' | 'memoryEfficiency' | 'timeUsed'; label: string }[] = [
  { key: 'cpuEfficiency', label: 'CPU' },
  { key: 'memoryEfficiency', label: 'Memory' },
  { key: 'timeUsed', label: 'Time limit' },
];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** What each job used of what it asked for: one dot per job on a 0–100 % line per measure, the median marked. */
export function efficiencyChart(rows: AccountingRow[]): SVGSVGElement {
  const lines = METRICS.map((m) => ({ ...m, values: rows.map((r) => r[m.key]).filter((v): v is number => v !== undefined) })).filter((m) => m.values.length);
  const description = lines.map((m) => `${m.label}: median ${Math.round(median(m.values) * 100)}% of ${m.values.length} jobs`).join('; ') || 'No efficiency figures.';
  const rowH = 30;
  const { root } = frame('Used of requested, per job (Efficiency)', description, PAD.top + rowH * lines.length + 24);
  const labelW = 80;
  const plotW = W - labelW - 20;
  const x = (v: number) => labelW + Math.min(1, Math.max(0, v)) * plotW;
  for (const pct of [0, 0.25, 0.5, 0.75, 1]) {
    root.append(svg('line', { x1: x(pct), x2: x(pct), y1: PAD.top, y2: PAD.top + rowH * lines.length, class: 'grid' }));
    root.append(svg('text', { x: x(pct), y: PAD.top + rowH * lines.length + 14, class: 'axis', 'text-anchor': 'middle' }, `${pct * 100}%`));
  }
  lines.forEach((m, i) => {
    const y = PAD.top + i * rowH + rowH / 2;
    root.append(svg('text', { x: labelW - 8, y: y + 4, class: 'axis label', 'text-anchor': 'end' }, m.label));
    for (const v of m.values) root.append(svg('circle', { cx: x(v), cy: y, r: 4, class: `dot-job${v < 0.25 ? ' low' : ''}` }, svg('title', {}, `${m.label}: ${Math.round(v * 100)}%`)));
    const med = median(m.values);
    root.append(svg('line', { x1: x(med), x2: x(med), y1: y - 10, y2: y + 10, class: 'median' }, svg('title', {}, `${m.label}: median ${Math.round(med * 100)}%`)));
  });
  return root;
}
