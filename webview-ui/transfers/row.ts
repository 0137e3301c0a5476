/**
 * One transfer as a list item: what and where, the progress bar with the per-part strip, rate and
 * ETA while it runs, the outcome (SHA-256) once it ended, and its buttons.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import type { TransferAction, TransferView } from '../../src/webviews/protocol';
import { el } from '../shared/dom';
import { basename, bytes, duration, KIND_GLYPH, KIND_LABEL, percent, phaseLabel, rate } from './format';

const STATE_LABEL = { running: 'Running', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' } as const;

function partStrip(t: TransferView): HTMLElement | undefined {
  if (!t.partsTotal || t.partsTotal < 2) return undefined;
  const label = `${t.partsDone ?? 0} of ${t.partsTotal} parts`;
  if (!t.partsFinished && t.state !== 'done') return el('p', { class: 'parts-count' }, label);
  const finished = new Set(t.state === 'done' ? Array.from({ length: t.partsTotal }, (_, i) => i + 1) : t.partsFinished);
  const cells: HTMLElement[] = [];
  for (let n = 1; n <= t.partsTotal; n++) cells.push(el('span', { class: finished.has(n) ? 'part done' : 'part', title: `Part ${n}${finished.has(n) ? ': sent' : ''}` }));
  return el('div', { class: 'parts', role: 'img', 'aria-label': label }, ...cells);
}

function figures(t: TransferView): string[] {
  const out: string[] = [];
  if (t.bytesTotal !== undefined) out.push(t.state === 'running' && t.bytesDone !== undefined ? `${bytes(t.bytesDone)} of ${bytes(t.bytesTotal)}` : bytes(t.bytesTotal));
  if (t.partsTotal && t.partsTotal > 1) out.push(`part ${t.partsDone ?? 0}/${t.partsTotal}`);
  if (t.rate) out.push(t.state === 'running' ? rate(t.rate) : `average ${rate(t.rate)}`);
  // Sent bytes may sit in buffers until their part is accepted: no "0 s left" while parts are open.
  if (t.state === 'running' && t.eta !== undefined && t.rate && t.bytesDone !== undefined && t.bytesTotal !== undefined && t.bytesDone < t.bytesTotal) out.push(`${duration(t.eta)} left`);
  if (t.state !== 'running' && t.endedAt !== undefined) out.push(`took ${duration((t.endedAt - t.startedAt) / 1000)}`);
  return out;
}

function outcome(t: TransferView): HTMLElement | undefined {
  if (t.state === 'failed') return el('p', { class: 'outcome error' }, t.error ?? 'Failed.');
  if (t.state === 'cancelled') return el('p', { class: 'outcome cancelled' }, 'Cancelled.');
  if (t.verified === true) {
    return el('p', { class: 'outcome verified' }, el('span', { class: 'badge ok' }, '✓ SHA-256 verified'), ' ',
      el('code', { class: 'sha', title: t.sha256 ?? '' }, t.sha256 ?? ''));
  }
  if (t.verified === false) return el('p', { class: 'outcome unverified' }, el('span', { class: 'badge warn' }, 'SHA-256 not verified'), ` ${t.note ?? ''}`);
  if (t.state === 'done') return el('p', { class: 'outcome' }, 'Done.');
  return undefined;
}

export function renderRow(t: TransferView, act: (action: TransferAction, id: number) => void): HTMLElement {
  const pct = percent(t);
  const name = basename(t.destination ?? t.source);
  const title = `${KIND_LABEL[t.kind]} ${name}`;
  const button = (action: TransferAction, label: string, show: boolean, secondary = true): HTMLElement | undefined => {
    if (!show) return undefined;
    const b = el('vscode-button', { secondary, 'data-action': action, 'aria-label': `${label}: ${title}` }, label);
    b.addEventListener('click', () => act(action, t.id));
    return b;
  };
  const bar = t.state === 'running'
    ? el('vscode-progress-bar', { 'aria-label': `${title}: ${pct === undefined ? phaseLabel(t.phase) : `${pct}%`}`, ...(pct === undefined ? { indeterminate: true } : { value: pct, max: 100 }) })
    : undefined;
  const status = t.state === 'running' ? `${phaseLabel(t.phase)}${pct === undefined ? '' : ` · ${pct}%`}` : STATE_LABEL[t.state];
  return el('li', { class: `transfer state-${t.state}`, 'data-id': t.id, 'data-percent': pct, 'data-verified': t.verified === undefined ? undefined : String(t.verified), 'aria-label': `${title}, ${status}` },
    el('div', { class: 'head' },
      el('span', { class: `glyph kind-${t.kind}`, 'aria-hidden': 'true' }, KIND_GLYPH[t.kind]),
      el('h2', {}, el('span', { class: 'kind' }, KIND_LABEL[t.kind]), ' ', el('span', { class: 'name' }, name)),
      el('span', { class: `state ${t.state}` }, status),
    ),
    el('dl', { class: 'ends' },
      el('dt', {}, 'From'), el('dd', { title: t.source }, t.source),
      ...(t.destination ? [el('dt', {}, 'To'), el('dd', { title: t.destination }, t.destination)] : []),
    ),
    bar,
    partStrip(t),
    el('p', { class: 'figures' }, figures(t).join(' · ')),
    t.state === 'running' && t.message && t.phase !== 'uploading' && t.phase !== 'downloading' ? el('p', { class: 'message' }, t.message) : undefined,
    outcome(t),
    el('div', { class: 'buttons' },
      button('cancel', 'Cancel', t.canCancel),
      // The likely next step is the primary button: Resume, else Retry after a failure, else Open.
      button('resume', 'Resume', t.canResume, false),
      button('retry', 'Retry', t.canRetry, t.canResume || t.state === 'done'),
      button('open', 'Open Destination', t.canOpen, t.state !== 'done'),
    ),
  );
}
