/**
 * The accounting panel's pure parts: message validation (wrong shapes rejected), the form to
 * AccountingQuery translation, CSV quoting, and the numbers behind the summary and charts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCsv, csvField } from '../../src/webviews/accounting/csv';
import { accountingToHost } from '../../src/webviews/accounting/messages';
import { matchesForm, stateInWords, timeWindow, toAccountingQuery, toRow } from '../../src/webviews/accounting/query';
import type { AccountingForm, AccountingRow } from '../../src/webviews/protocol';
import type { Job } from '../../src/core/model';
import { jobsOverTime, nodeHoursBy, totalsByState } from '../../webview-ui/accounting/stats';
import { visibleRows } from '../../webview-ui/accounting/rows';

const form: AccountingForm = { profile: 'p', system: 'cluster', range: '7d', from: '', to: '', jobIds: '', state: '', account: '', partition: '', name: '', allUsers: false };

void describe('accounting messages from the webview', () => {
  void it('accepts every well-formed message', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'query', requestId: 1, form },
      { type: 'export', requestId: 2, ids: ['1', '2'] },
      { type: 'openJob', id: '12', what: 'output' },
      { type: 'command', command: 'signIn' },
      { type: 'rendered', requestId: 1, rows: 3 },
    ]) assert.ok(accountingToHost.safeParse(m).success, JSON.stringify(m));
  });
  void it('rejects wrong shapes', () => {
    for (const m of [
      null, 'ready', 42, {}, { type: 'nope' },
      { type: 'query', requestId: '1', form },
      { type: 'query', requestId: 1 },
      { type: 'query', requestId: 1, form: { ...form, range: 'forever' } },
      { type: 'query', requestId: 1, form: { ...form, from: '1/2/2024' } },
      { type: 'query', requestId: -1, form },
      { type: 'openJob', id: '', what: 'details' },
      { type: 'openJob', id: '1', what: 'rm -rf' },
      { type: 'command', command: 'workbench.action.terminal.new' },
      { type: 'ready', extra: true },
      { type: 'export', requestId: 1, ids: [1] },
    ]) assert.ok(!accountingToHost.safeParse(m).success, JSON.stringify(m));
  });
});

void describe('accounting query', () => {
  const now = new Date(2025, 5, 15, 13, 30).getTime();
  void it('turns presets and days into a time window', () => {
    assert.equal(timeWindow({ ...form, range: 'today' }, now).start, new Date(2025, 5, 15).getTime() / 1000);
    assert.equal(timeWindow({ ...form, range: '30d' }, now).start, now / 1000 - 30 * 86400);
    const w = timeWindow({ ...form, range: 'custom', from: '2025-06-01', to: '2025-06-02' }, now);
    assert.equal(w.start, new Date(2025, 5, 1).getTime() / 1000);
    assert.equal(w.end, new Date(2025, 5, 3).getTime() / 1000 - 1);
    assert.throws(() => timeWindow({ ...form, range: 'custom', from: '2025-06-03', to: '2025-06-01' }, now), RangeError);
  });
  void it('passes ids, account and name to the API and filters state and partition itself', () => {
    const q = toAccountingQuery({ ...form, jobIds: '12, 13 14', account: ' proj ', name: '' }, now);
    assert.deepEqual(q.jobIds, ['12', '13', '14']);
    assert.equal(q.account, 'proj');
    assert.equal(q.name, undefined);
    const job = { id: '1', name: 'a', state: 'FAILED', stateClass: 'failed', isFinal: true, partition: 'debug' } as Job;
    assert.ok(matchesForm(job, { ...form, state: 'failed', partition: 'debug' }));
    assert.ok(!matchesForm(job, { ...form, state: 'completed' }));
    assert.ok(!matchesForm(job, { ...form, partition: 'normal' }));
    // The servers' transfer jobs are left out unless asked for, or named.
    const move = { ...job, name: 'MoveFiles', partition: 'xfer' } as Job;
    assert.ok(!matchesForm(move, form));
    assert.ok(matchesForm(move, { ...form, transferJobs: true }));
    assert.ok(matchesForm(move, { ...form, name: 'MoveFiles' }));
  });
});

const row = (r: Partial<AccountingRow> & { id: string }): AccountingRow => ({ name: `job${r.id}`, state: 'COMPLETED', stateClass: 'completed', ...r });

void describe('CSV export', () => {
  void it('quotes separators, quotes and line breaks, and defuses formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('=SUM(A1)'), "'=SUM(A1)");
    assert.equal(csvField(-3), '-3');
    assert.equal(csvField(undefined), '');
    const csv = toCsv([row({ id: '7', name: 'x,"y"', exitCode: 3, submit: 0 })]);
    const [head, line] = csv.split('\r\n');
    assert.equal(head, 'JobID,JobName,State,Submit,ExitCode');
    assert.equal(line, '7,"x,""y""",COMPLETED,1970-01-01T00:00:00.000Z,3');
    const full = toCsv([row({ id: '7', partition: 'debug', account: 'a', user: 'u', nodes: 1, submit: 0, start: 1, end: 2, elapsed: 1, exitCode: 0 }), row({ id: '8' })]).split('\r\n');
    assert.equal(full[0], 'JobID,JobName,State,Partition,Account,User,NNodes,Submit,Start,End,ElapsedSeconds,ExitCode');
    assert.equal(full[2], '8,job8,COMPLETED,,,,,,,,,', 'a row without a value keeps its empty cells');
    assert.ok(csv.endsWith('\r\n'));
    // A column no row fills (v2 has no submit time) is left out; the first three always stay.
    assert.equal(toCsv([row({ id: '8', exitCode: 0 })]).split('\r\n')[0], 'JobID,JobName,State,ExitCode');
    assert.equal(toCsv([]).split('\r\n')[0], 'JobID,JobName,State');
  });

  void it('names the user who cancelled a job where it is the user, else says uid', () => {
    const me = { id: '1001', name: 'alice' };
    assert.equal(stateInWords('CANCELLED by 1001', me), 'CANCELLED by alice');
    assert.equal(stateInWords('CANCELLED by 0', me), 'CANCELLED by uid 0');
    assert.equal(stateInWords('CANCELLED by 1001'), 'CANCELLED by uid 1001');
    assert.equal(stateInWords('COMPLETED', me), 'COMPLETED');
    assert.equal(toRow({ id: '1', name: 'a', state: 'CANCELLED by 1001', stateClass: 'cancelled', isFinal: true }, me).state, 'CANCELLED by alice');
  });
});

void describe('summary numbers and table order', () => {
  const rows = [
    row({ id: '10', partition: 'debug', account: 'a', nodes: 2, elapsed: 3600, submit: 1_000_000 }),
    row({ id: '9', stateClass: 'failed', state: 'FAILED', partition: 'normal', account: 'a', nodes: 1, elapsed: 1800, submit: 1_000_100, exitCode: 3 }),
    row({ id: '100', partition: 'debug', account: 'b', elapsed: 7200, submit: 1_300_000 }),
  ];
  void it('totals states and node-hours', () => {
    assert.deepEqual([...totalsByState(rows)], [['completed', 2], ['failed', 1]]);
    assert.deepEqual(nodeHoursBy(rows, 'partition').map((e) => [e.key, e.hours]), [['debug', 4], ['normal', 0.5]]);
    assert.deepEqual(nodeHoursBy(rows, 'account').map((e) => [e.key, e.hours]), [['a', 2.5], ['b', 2]]);
  });
  void it('buckets by day over a longer span, keeping empty days', () => {
    const { unit, buckets } = jobsOverTime(rows);
    assert.equal(unit, 'day');
    assert.equal(buckets.reduce((s, b) => s + b.total, 0), 3);
    assert.ok(buckets.length >= 2);
  });
  void it('sorts ids numerically and filters by text', () => {
    const view = { sort: { column: 'id' as const, descending: false }, filter: '', page: 0 };
    assert.deepEqual(visibleRows(rows, view).map((r) => r.id), ['9', '10', '100']);
    assert.deepEqual(visibleRows(rows, { ...view, filter: 'fail' }).map((r) => r.id), ['9']);
    assert.deepEqual(visibleRows(rows, { ...view, sort: { column: 'exitCode', descending: true } }).map((r) => r.id)[0], '9');
  });
});
