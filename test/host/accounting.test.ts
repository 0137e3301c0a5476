/**
 * Job Accounting in a real VS Code against the local gateway (sacct through slurmdbd when Slurm
 * runs): the panel opens from the command with a system, the real webview says `ready`, runs its
 * first query and draws the rows; queries through the host's message entry point return the jobs
 * this suite submitted, in the right states with the right exit codes; a message of the wrong
 * shape is rejected; CSV export and a job click go where they should.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { AccountingPanel } from '../../src/webviews/accounting/accountingPanel';
import type { AccountingForm, AccountingToHost, AccountingToWebview } from '../../src/webviews/protocol';
import { target } from '../support/target';
import { extensionApi, firecrestLogText, nextEvent, waitFor } from './support/extension';
import { testPartition } from './support/apiVersion';
import { jobsFolder } from '../support/jobsFolder';

const PROFILE = 'acct-test';

/** Resolves with the first message the host delivers to the webview that matches. */
function nextPost<T extends AccountingToWebview>(panel: AccountingPanel, match: (m: AccountingToWebview) => m is T, timeoutMs = 180_000): Promise<T> {
  return nextEvent(panel.onDidPost, match, 'a message to the webview', timeoutMs);
}

function nextReceived<T extends AccountingToHost>(panel: AccountingPanel, match: (m: AccountingToHost) => m is T, timeoutMs = 180_000): Promise<T> {
  return nextEvent(panel.onDidReceive, match, 'a message from the webview', timeoutMs);
}

type Results = Extract<AccountingToWebview, { type: 'results' }>;
type Failed = Extract<AccountingToWebview, { type: 'failed' }>;
const answerTo = (id: number) => (m: AccountingToWebview): m is Results | Failed => (m.type === 'results' || m.type === 'failed') && m.requestId === id;

describe('Job Accounting panel', function () {
  // Guards, not budgets: each query reads a week of the user's accounting, which takes minutes
  // with two CI runs on the machine (CI49: two tests past 60 s).
  this.timeout(300_000);
  const t = target();
  let client: FirecrestClient;
  let panel: AccountingPanel;
  const ids: { ok: string; fail: string } = { ok: '', fail: '' };
  const tag = Math.random().toString(36).slice(2, 8);
  let requestId = 10_000;
  /** The partition the jobs are submitted to (testPartition). */
  let partition = 'debug';
  /** The webview's own first answer, as it reported drawing it. */
  let firstRendered: { requestId: number; rows: number } | undefined;
  const form = (over: Partial<AccountingForm> = {}): AccountingForm => ({
    profile: PROFILE, system: t.system, range: '7d', from: '', to: '', jobIds: '', state: '', account: '', partition: '', name: '', allUsers: false, ...over,
  });
  /** Sends a query as the webview would and returns the host's answer. */
  async function ask(f: AccountingForm): Promise<Results | Failed> {
    const id = ++requestId;
    const answer = nextPost(panel, answerTo(id));
    assert.equal(await panel.receive({ type: 'query', requestId: id, form: f }), true);
    return answer;
  }

  /** Where the two jobs run (their output files go with it). */
  let jobs: { path: string; remove: () => Promise<void> } | undefined;

  before(async function () {
    this.timeout(240_000);
    const api = await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
    const home = `/home/${(await client.userInfo(t.system)).user.name}`;
    jobs = await jobsFolder(client, t.system, home, 'fc-acct-jobs');
    partition = await testPartition(client, t.system);
    const script = (code: number) => `#!/bin/bash\n#SBATCH --partition=${partition}\n#SBATCH --time=00:02:00\necho "accounting ${tag} ${code}"\nexit ${code}\n`;
    ids.ok = await client.submitJob(t.system, { script: script(0), workingDirectory: jobs.path, name: `acct-ok-${tag}` });
    ids.fail = await client.submitJob(t.system, { script: script(3), workingDirectory: jobs.path, name: `acct-fail-${tag}` });
    await Promise.all([ids.ok, ids.fail].map((id) => client.waitForJob(t.system, id, { overallTimeoutMs: 180_000 })));
    // Slurm's time-window accounting shows a job a few seconds after `sacct --jobs` does (the
    // panel asks for a window): wait until the window has both, as a user would see them.
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    await waitFor('both jobs in the accounting window', async () => {
      const rows = await client.accounting(t.system, { startTime: Math.floor(midnight.getTime() / 1000) - 3600 });
      return [ids.ok, ids.fail].every((id) => rows.some((r) => r.id === id));
    }, 180_000);
  });

  after(async () => {
    await jobs?.remove();
    panel?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('opens for a system; the real webview says ready, runs its first query and draws the rows', async function () {
    // The first query reads the day's accounting: on API v1, with a busy test user's history and
    // two runs on the machine, that took more than a minute (CI37).
    this.timeout(300_000);
    await vscode.commands.executeCommand('firecrest.jobAccounting', { profile: PROFILE, system: t.system });
    panel = await waitFor('the accounting panel', async () => await vscode.commands.executeCommand<AccountingPanel | undefined>('firecrest.test.accountingPanel'));
    assert.equal(panel.panel.viewType, 'firecrest.accounting');
    const opts = panel.panel.webview.options;
    assert.equal(opts.enableScripts, true);
    const ext = vscode.extensions.getExtension('firecrest-community.firecrest-vscode')!.extensionUri.path;
    assert.deepEqual(opts.localResourceRoots?.map((u) => u.path).sort(), [`${ext}/dist`, `${ext}/media/webviews`], 'only the bundle and our stylesheets');
    // The webview's own query (its request id) and its answer, then the webview reports the table.
    const rendered = await nextReceived(panel, (m): m is Extract<AccountingToHost, { type: 'rendered' }> => m.type === 'rendered', 280_000);
    assert.ok(panel.isReady, 'ready handshake done');
    assert.ok(rendered.rows >= 2, `the webview drew ${rendered.rows} rows`);
    firstRendered = rendered;
    const shown = panel.lastResults!;
    assert.equal(shown.requestId, rendered.requestId, 'the drawn table answers the webview request');
    for (const id of [ids.ok, ids.fail]) assert.ok(shown.rows.some((r) => r.id === id), `job ${id} in the first results`);
  });

  it('returns the submitted jobs by id, in the right states with the right exit codes', async () => {
    // slurmctld hands a finished job to slurmdbd asynchronously: sacct may show it a moment
    // before its exit code is recorded, so ask until both records are complete.
    const rows = await waitFor('both jobs with their exit codes', async () => {
      const answer = await ask(form({ jobIds: `${ids.ok}, ${ids.fail}` }));
      assert.equal(answer.type, 'results', JSON.stringify(answer));
      const r = answer.rows;
      return r.length === 2 && r.every((x) => x.exitCode !== undefined) ? r : undefined;
    }, 180_000);
    assert.deepEqual(rows.map((r) => r.id).sort(), [ids.ok, ids.fail].sort());
    const ok = rows.find((r) => r.id === ids.ok)!;
    const fail = rows.find((r) => r.id === ids.fail)!;
    assert.equal(ok.name, `acct-ok-${tag}`);
    assert.match(ok.state, /^COMPLETED/);
    assert.equal(ok.stateClass, 'completed');
    assert.equal(ok.exitCode, 0);
    assert.match(fail.state, /^FAILED/);
    assert.equal(fail.stateClass, 'failed');
    assert.equal(fail.exitCode, 3);
    assert.equal(ok.partition, partition);
    assert.ok(ok.start && ok.end && ok.end >= ok.start, 'start and end times');
    assert.ok(ok.elapsed !== undefined && ok.elapsed >= 0);
  });

  it('filters by state and by name on the host', async () => {
    const failed = (await ask(form({ state: 'failed', name: `acct-fail-${tag}` }))) as Results;
    assert.equal(failed.type, 'results');
    assert.deepEqual(failed.rows.map((r) => r.id), [ids.fail]);
    const none = (await ask(form({ jobIds: ids.ok, state: 'failed' }))) as Results;
    assert.equal(none.rows.length, 0);
  });

  it('says when the server cannot look back as far as asked (v2 lists 7 days of finished jobs)', async () => {
    const month = (await ask(form({ range: '30d', jobIds: ids.ok }))) as Results;
    assert.equal(month.type, 'results');
    assert.deepEqual(month.rows.map((r) => r.id), [ids.ok], 'the recent job is still found');
    const week = (await ask(form({ range: '7d', jobIds: ids.ok }))) as Results;
    assert.equal(week.limit, undefined, 'nothing to say within 7 days');
    if (client.apiVersion === 'v2') assert.match(month.limit ?? '', /last 7 days only/);
    else assert.equal(month.limit, undefined, 'v1 accounting (sacct) covers any range');
  });

  it('answers an unknown system with the API error, an unknown connection with noConnection, a backwards range as invalid', async () => {
    const bad = (await ask(form({ system: `no-such-system-${tag}` }))) as Failed;
    assert.equal(bad.type, 'failed');
    assert.equal(bad.failure, 'api');
    assert.ok(bad.message.length > 0);
    const gone = (await ask(form({ profile: 'not-a-profile' }))) as Failed;
    assert.equal(gone.failure, 'noConnection');
    const backwards = (await ask(form({ range: 'custom', from: '2025-06-03', to: '2025-06-01' }))) as Failed;
    assert.equal(backwards.failure, 'invalid');
    assert.match(backwards.message, /ends .* before it starts/);
  });

  it('rejects and logs a message of the wrong shape without acting on it', async () => {
    let posted = 0;
    const sub = panel.onDidPost(() => posted++);
    const before = panel.lastResults;
    for (const bad of [{ type: 'query', requestId: 'x', form: form() }, { type: 'openJob', id: ids.ok, what: 'delete' }, { type: 'command', command: 'workbench.action.quit' }, 'ready', null]) {
      assert.equal(await panel.receive(bad), false, JSON.stringify(bad));
    }
    await new Promise((r) => setTimeout(r, 300));
    sub.dispose();
    assert.equal(posted, 0, 'no answer to a rejected message');
    assert.equal(panel.lastResults, before);
    const api = await extensionApi();
    await waitFor('the rejection in the log', () => /rejected a message of the wrong shape/.test(firecrestLogText(api)), 10_000);
  });

  it('exports the rows it is given as CSV through the save dialog', async () => {
    await ask(form({ jobIds: `${ids.ok} ${ids.fail}` }));
    const file = join(mkdtempSync(join(tmpdir(), 'fc-acct-')), 'out.csv');
    panel.pickSaveUri = async () => vscode.Uri.file(file);
    const id = ++requestId;
    const done = nextPost(panel, (m): m is Extract<AccountingToWebview, { type: 'exported' }> => m.type === 'exported' && m.requestId === id);
    await panel.receive({ type: 'export', requestId: id, ids: [ids.fail, ids.ok] });
    assert.equal((await done).path, file);
    const lines = readFileSync(file, 'utf8').split('\r\n');
    assert.match(lines[0], /^JobID,JobName,State,/);
    assert.match(lines[1], new RegExp(`^${ids.fail},acct-fail-${tag},FAILED`));
    assert.match(lines[1], /,3$/);
    assert.match(lines[2], new RegExp(`^${ids.ok},acct-ok-${tag},COMPLETED.*,0$`));
  });

  it('adds what the finished jobs used (Efficiency: one short job) to their rows and to the CSV', async () => {
    await ask(form({ jobIds: `${ids.ok} ${ids.fail}` }));
    type Eff = Extract<AccountingToWebview, { type: 'efficiency' }>;
    const id = ++requestId;
    const answer = nextPost(panel, (m): m is Eff => m.type === 'efficiency' && m.requestId === id);
    // An id that is not in the results is left out (the webview sends ids, the host keeps the data).
    assert.equal(await panel.receive({ type: 'efficiency', requestId: id, ids: [ids.ok, ids.fail, '999999999'] }), true);
    const eff = await answer;
    if (t.gateway?.scheduler === 'local') {
      assert.match(eff.error ?? '', /not available/, 'the built-in scheduler keeps no accounting: said in words');
      return;
    }
    assert.equal(eff.error, undefined);
    assert.deepEqual(eff.rows.map((r) => r.id).sort(), [ids.ok, ids.fail].sort());
    for (const r of eff.rows) assert.ok(r.timeUsed !== undefined && r.timeUsed >= 0 && r.timeUsed < 0.5, `time used of 2 minutes: ${r.timeUsed}`);
    assert.ok(panel.lastResults!.rows.find((r) => r.id === ids.ok)?.timeUsed !== undefined, 'kept with the rows');
    const file = join(mkdtempSync(join(tmpdir(), 'fc-acct-')), 'eff.csv');
    panel.pickSaveUri = async () => vscode.Uri.file(file);
    const exportId = ++requestId;
    const done = nextPost(panel, (m): m is Extract<AccountingToWebview, { type: 'exported' }> => m.type === 'exported' && m.requestId === exportId);
    await panel.receive({ type: 'export', requestId: exportId, ids: [ids.ok] });
    await done;
    const [head, row] = readFileSync(file, 'utf8').split('\r\n');
    assert.match(head, /,TimeUsed$/);
    assert.match(row, /,0\.\d{3}$/);
    // Too many at once is a message of the wrong shape.
    assert.equal(await panel.receive({ type: 'efficiency', requestId: ++requestId, ids: Array.from({ length: 201 }, (_, i) => String(i + 1)) }), false);
  });

  it('opens a clicked job in Show Job Details', async () => {
    await panel.receive({ type: 'openJob', id: ids.fail, what: 'details' });
    // The job's details view (a webview titled after the job).
    await waitFor('the details view', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((x) => x.input instanceof vscode.TabInputWebview && x.label.startsWith(`Job ${ids.fail}`)));
  });

  it('opens the output of a job from its row (Open Job Output: a read-only output document)', async () => {
    await panel.receive({ type: 'openJob', id: ids.ok, what: 'output' });
    const editor = await waitFor('the output document, with the output and how the job ended', () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'firecrest-output' && /\[Job \d+ completed/.test(e.document.getText())), 30_000);
    assert.match(editor.document.getText(), new RegExp(`accounting ${tag} 0`));
  });

  it('says ready again after being hidden and shown (the webview restores itself from its state)', async () => {
    // The details editor opened in the panel's column above, so the panel is hidden now.
    await waitFor('the panel hidden', () => !panel.panel.visible);
    assert.equal(panel.isReady, false);
    const again = nextReceived(panel, (m): m is Extract<AccountingToHost, { type: 'ready' }> => m.type === 'ready');
    const redrawn = nextReceived(panel, (m): m is Extract<AccountingToHost, { type: 'rendered' }> => m.type === 'rendered');
    let queried = 0;
    const sub = panel.onDidReceive((m) => m.type === 'query' && queried++);
    panel.panel.reveal();
    await again;
    assert.ok(panel.isReady);
    // The same answer, from the webview's saved state, drawn again without a new query.
    assert.deepEqual(await redrawn, { type: 'rendered', ...firstRendered });
    sub.dispose();
    assert.equal(queried, 0, 'no new query after being shown again');
  });

  it('restores after a reload through the serializer, with its own (narrow) resource roots', async () => {
    const ext = vscode.extensions.getExtension('firecrest-community.firecrest-vscode')!.extensionUri;
    const old = panel;
    // Saved with wider options than ours (say, by an older version): the host narrows them.
    const restored = await vscode.commands.executeCommand<AccountingPanel>('firecrest.test.accountingRestore', { enableScripts: true, localResourceRoots: [ext] });
    assert.notEqual(restored, old);
    assert.deepEqual(restored.panel.webview.options.localResourceRoots?.map((u) => u.path).sort(), [`${ext.path}/dist`, `${ext.path}/media/webviews`]);
    const drawn = await nextReceived(restored, (m): m is Extract<AccountingToHost, { type: 'rendered' }> => m.type === 'rendered');
    assert.ok(restored.isReady && drawn.rows >= 2);
    restored.dispose();
  });
});
