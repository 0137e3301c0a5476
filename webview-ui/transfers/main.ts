/**
 * The Transfer Centre webview: every transfer of the window, running ones first, updated from the
 * host's (throttled) changes. Everything it shows is kept in `setState`, so a hidden-then-shown or
 * restored panel draws at once and the host's `init` brings it up to date.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { TransferAction, TransfersToHost, TransfersToWebview, TransfersViewState, TransferView } from '../../src/webviews/protocol';
import { el, replace } from '../shared/dom';
import { vscodeApi } from '../shared/vscodeApi';
import { percent } from './format';
import { renderRow } from './row';

const api = vscodeApi<TransfersToHost, TransfersViewState>();
let state: TransfersViewState = api.state() ?? { transfers: [] };
let nextRequestId = 1;
const pending = new Map<number, string>();

const summary = el('p', { class: 'summary', 'aria-live': 'polite' });
const notice = el('p', { class: 'notice', role: 'status' });
const clear = el('vscode-button', { secondary: true, 'aria-label': 'Clear finished transfers' }, 'Clear Finished');
const list = el('ul', { class: 'transfers', 'aria-label': 'Transfers' });
const empty = el('div', { class: 'empty' },
  el('p', { class: 'headline' }, 'No transfers yet.'),
  el('p', {}, 'Uploads, downloads, and moves, copies, deletions, compressions and extractions on the cluster show here while they run, and stay listed once finished until you clear them.'),
);

clear.addEventListener('click', () => request({ type: 'clear', requestId: nextRequestId }, 'clear'));

function request(m: Extract<TransfersToHost, { requestId: number }>, what: string): void {
  pending.set(m.requestId, what);
  nextRequestId++;
  api.post(m);
}

function act(action: TransferAction, id: number): void {
  request({ type: 'action', requestId: nextRequestId, action, id }, action);
}

function sorted(ts: TransferView[]): TransferView[] {
  return [...ts].sort((a, b) => Number(a.state !== 'running') - Number(b.state !== 'running') || b.startedAt - a.startedAt || b.id - a.id);
}

/** Keeps the focus on the same button (or row) of a redrawn item. */
function focusKey(): { id: number; action?: string } | undefined {
  const active = document.activeElement;
  const item = active?.closest('li.transfer');
  if (!item) return undefined;
  return { id: Number(item.getAttribute('data-id')), action: active?.getAttribute('data-action') ?? undefined };
}

function restoreFocus(key: { id: number; action?: string } | undefined): void {
  if (!key) return;
  const item = list.querySelector<HTMLElement>(`li.transfer[data-id="${key.id}"]`);
  const target = (key.action && item?.querySelector<HTMLElement>(`[data-action="${key.action}"]`)) || item?.querySelector<HTMLElement>('[data-action]');
  (target ?? clear).focus();
}

function draw(changed?: Set<number>): void {
  const key = focusKey();
  const ts = sorted(state.transfers);
  const running = ts.filter((t) => t.state === 'running').length;
  const finished = ts.length - running;
  summary.textContent = ts.length ? `${running} running · ${finished} finished` : '';
  clear.toggleAttribute('disabled', finished === 0);
  empty.toggleAttribute('hidden', ts.length > 0);
  // Unchanged items keep their elements (and their focus); changed ones are drawn anew.
  const old = new Map([...list.querySelectorAll<HTMLElement>('li.transfer')].map((li) => [Number(li.dataset.id), li]));
  const items = ts.map((t) => (!changed || changed.has(t.id) || !old.has(t.id) ? renderRow(t, act) : old.get(t.id)!));
  replace(list, ...items);
  restoreFocus(key);
  api.saveState(state);
  api.post({ type: 'rendered', rows: ts.map((t) => ({ id: t.id, state: t.state, percent: percent(t), verified: t.verified })) });
}

function onMessage(m: TransfersToWebview): void {
  switch (m.type) {
    case 'init':
      state = { ...state, transfers: m.transfers };
      draw();
      return;
    case 'update': {
      const byId = new Map(state.transfers.map((t) => [t.id, t]));
      for (const id of m.removed) byId.delete(id);
      for (const t of m.transfers) byId.set(t.id, t);
      state = { ...state, transfers: [...byId.values()] };
      draw(new Set(m.transfers.map((t) => t.id)));
      return;
    }
    case 'done': {
      const what = pending.get(m.requestId);
      pending.delete(m.requestId);
      notice.textContent = m.error ? `${what ? `${what[0].toUpperCase()}${what.slice(1)}: ` : ''}${m.error}` : '';
      notice.classList.toggle('error', !!m.error);
      return;
    }
  }
}

const app = document.getElementById('app')!;
replace(app, el('header', {}, el('h1', {}, 'Transfers'), summary, el('div', { class: 'actions' }, clear)), notice, empty, list);
app.removeAttribute('aria-busy');
draw();
window.addEventListener('message', (e: MessageEvent<TransfersToWebview>) => onMessage(e.data));
api.post({ type: 'ready' });
