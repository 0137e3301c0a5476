/**
 * The query form: system, time range (presets or from/to days), job ids, state, account,
 * partition, name, all users. Built once; `read()` and `write()` move the values between the
 * elements and the saved `AccountingForm`.
 */
import type { AccountingConnection, AccountingForm } from '../../src/webviews/protocol';
import { el, replace } from '../shared/dom';

interface ValueElement extends HTMLElement {
  value: string;
}
interface CheckElement extends HTMLElement {
  checked: boolean;
}

const RANGES: [AccountingForm['range'], string][] = [['today', 'Today'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['custom', 'From / to dates']];
const STATES: [string, string][] = [['', 'Any state'], ['completed', 'Completed'], ['failed', 'Failed'], ['cancelled', 'Cancelled'], ['running', 'Running'], ['pending', 'Pending'], ['other', 'Other']];

export interface QueryForm {
  root: HTMLElement;
  read(): AccountingForm;
  write(form: AccountingForm): void;
  /** Refills the system list; keeps the form's choice when it still exists. */
  setConnections(connections: AccountingConnection[], form: AccountingForm): void;
  setBusy(busy: boolean): void;
  setExportable(exportable: boolean): void;
}

function field(id: string, label: string, control: HTMLElement, extraClass = ''): HTMLElement {
  control.id = id;
  return el('div', { class: `field ${extraClass}`.trim() }, el('vscode-label', { for: id }, label), control);
}

function select(options: [string, string][], selected: string): ValueElement {
  return el<ValueElement>('vscode-single-select', {}, ...options.map(([v, l]) => el('vscode-option', { value: v, selected: v === selected }, l)));
}

export function createQueryForm(on: { submit(): void; export(): void }): QueryForm {
  let systemKeys: { profile: string; system: string }[] = [];
  const system = el<ValueElement>('vscode-single-select', { 'aria-label': 'System' });
  const range = select(RANGES, '7d');
  const from = el<ValueElement>('vscode-textfield', { type: 'date', 'aria-label': 'From day' });
  const to = el<ValueElement>('vscode-textfield', { type: 'date', 'aria-label': 'To day (inclusive)' });
  const jobIds = el<ValueElement>('vscode-textfield', { placeholder: 'e.g. 1201, 1202' });
  const state = select(STATES, '');
  const account = el<ValueElement>('vscode-textfield', { placeholder: 'any' });
  const partition = el<ValueElement>('vscode-textfield', { placeholder: 'any' });
  const name = el<ValueElement>('vscode-textfield', { placeholder: 'any' });
  const allUsers = el<CheckElement>('vscode-checkbox', { label: 'All users' }, 'All users');
  const transferJobs = el<CheckElement>('vscode-checkbox', { label: 'Transfer jobs' }, 'Transfer jobs');
  const run = el('vscode-button', { id: 'run' }, 'Query');
  const exportButton = el('vscode-button', { id: 'export', secondary: true, disabled: true }, 'Export CSV…');
  const dates = el('div', { class: 'dates' }, field('f-from', 'From', from), field('f-to', 'To', to));

  const showDates = () => dates.toggleAttribute('hidden', range.value !== 'custom');
  range.addEventListener('change', showDates);
  run.addEventListener('click', () => on.submit());
  exportButton.addEventListener('click', () => on.export());

  const root = el('form', { class: 'query', 'aria-label': 'Accounting query' },
    field('f-system', 'System', system, 'wide'),
    field('f-range', 'Time range', range),
    dates,
    field('f-ids', 'Job IDs', jobIds),
    field('f-state', 'State', state),
    field('f-account', 'Account', account),
    field('f-partition', 'Partition', partition),
    field('f-name', 'Name', name),
    el('div', { class: 'field check' }, allUsers, transferJobs),
    el('div', { class: 'actions' }, run, exportButton));
  // Enter in any text field runs the query, as in a native form.
  root.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.target as HTMLElement).tagName === 'VSCODE-TEXTFIELD') {
      e.preventDefault();
      on.submit();
    }
  });
  root.addEventListener('submit', (e) => e.preventDefault());

  const read = (): AccountingForm => {
    const sys = systemKeys[Number(system.value)] ?? { profile: '', system: '' };
    return {
      profile: sys.profile,
      system: sys.system,
      range: range.value as AccountingForm['range'],
      from: from.value,
      to: to.value,
      jobIds: jobIds.value,
      state: state.value,
      account: account.value,
      partition: partition.value,
      name: name.value,
      allUsers: allUsers.checked,
      transferJobs: transferJobs.checked,
    };
  };

  const write = (f: AccountingForm) => {
    range.value = f.range;
    from.value = f.from;
    to.value = f.to;
    jobIds.value = f.jobIds;
    state.value = f.state;
    account.value = f.account;
    partition.value = f.partition;
    name.value = f.name;
    allUsers.checked = f.allUsers;
    transferJobs.checked = f.transferJobs ?? false;
    const i = systemKeys.findIndex((k) => k.profile === f.profile && k.system === f.system);
    if (i >= 0) system.value = String(i);
    showDates();
  };

  const setConnections = (connections: AccountingConnection[], f: AccountingForm) => {
    const multi = connections.length > 1;
    systemKeys = connections.flatMap((c) => c.systems.map((s) => ({ profile: c.profile, system: s })));
    const selected = Math.max(0, systemKeys.findIndex((k) => k.profile === f.profile && k.system === f.system));
    replace(system, ...systemKeys.map((k, i) => el('vscode-option', { value: String(i), selected: i === selected }, multi ? `${k.profile} / ${k.system}` : k.system)));
    system.value = String(selected);
    system.toggleAttribute('disabled', systemKeys.length === 0);
  };

  const setBusy = (busy: boolean) => {
    run.toggleAttribute('disabled', busy);
  };

  const setExportable = (exportable: boolean) => {
    exportButton.toggleAttribute('disabled', !exportable);
  };

  return { root, read, write, setConnections, setBusy, setExportable };
}
