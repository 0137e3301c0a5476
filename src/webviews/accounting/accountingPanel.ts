/**
 * The Job Accounting panel's host side: answers the webview's queries through
 * `FirecrestApi.accounting`, exports CSV through a save dialog, and hands job clicks to the
 * existing job commands. One panel at a time (see `AccountingPanels`).
 */
import * as vscode from 'vscode';
import { isCancellation, messageOf, UnauthorizedError } from '../../core/errors';
import type { ExtensionServices } from '../../common/services';
import type { UserInfo } from '../../core/model';
import { WebviewPanelHost } from '../panelHost';
import type { AccountingConnection, AccountingEfficiency, AccountingForm, AccountingRow, AccountingToHost, AccountingToWebview } from '../protocol';
import { homeDirectory } from '../../common/homeDirectory';
import { sidecarScratch } from '../../core/sidecar/sidecar';
import { toCsv } from './csv';
import { ACCOUNTING_PANEL } from './descriptor';
import { accountingToHost } from './messages';
import { matchesForm, toAccountingQuery, toRow } from './query';

// register.ts loads this module on first use (a bundle of its own) and reaches the panel host through it.
export { webviewOptions } from '../panelHost';

/** The longest look-back of the v2 job listing (`time_window=7d`), plus a minute of slack. */
const V2_LOOKBACK_S = 7 * 86_400 + 60;
type Results = Extract<AccountingToWebview, { type: 'results' }>;

export class AccountingPanel extends WebviewPanelHost<AccountingToHost, AccountingToWebview> {
  private preset: Partial<AccountingForm> | undefined;
  private inFlight: AbortController | undefined;
  /** The last answer, kept for export and job clicks (the webview sends ids, not data). */
  private last: Results | undefined;
  /** The user of each profile/system, asked once per panel: it names "CANCELLED by <uid>" rows. */
  private readonly users = new Map<string, Promise<UserInfo['user'] | undefined>>();
  /** Where an export goes; a seam so host tests can answer the dialog. */
  pickSaveUri: (suggested: vscode.Uri) => Thenable<vscode.Uri | undefined> = (defaultUri) =>
    vscode.window.showSaveDialog({ defaultUri, filters: { CSV: ['csv'] }, title: vscode.l10n.t('Export job accounting') });

  constructor(panel: vscode.WebviewPanel, private readonly services: ExtensionServices, preset?: Partial<AccountingForm>) {
    super(panel, services.context.extensionUri, ACCOUNTING_PANEL, accountingToHost, services.log.withTag('accounting'));
    this.preset = preset;
    this._register(services.connections.onDidChange(() => this.isReady && void this.sendInit()));
    this._register({ dispose: () => this.inFlight?.abort() });
  }

  /** Pre-selects a system (from a tree node or a command argument) in an open panel. */
  async select(preset: Partial<AccountingForm>): Promise<void> {
    this.preset = preset;
    if (this.isReady) await this.sendInit();
  }

  get lastResults(): Results | undefined {
    return this.last;
  }

  protected override async onReady(): Promise<void> {
    await this.sendInit();
  }

  private async sendInit(): Promise<void> {
    const preset = this.preset;
    this.preset = undefined;
    await this.post({ type: 'init', connections: await this.connectionChoices(), preset });
  }

  private async connectionChoices(): Promise<AccountingConnection[]> {
    const conns = this.services.connections.connections();
    return Promise.all(
      conns.map(async (c): Promise<AccountingConnection> => {
        const profile = c.profile.name;
        if (c.state === 'signed-out') return { profile, signedIn: false, systems: [] };
        try {
          const systems = await this.services.connections.systems(profile);
          return { profile, signedIn: true, systems: systems.map((s) => s.name) };
        } catch (e) {
          return { profile, signedIn: !(e instanceof UnauthorizedError), systems: [], error: messageOf(e) };
        }
      }),
    );
  }

  protected override async handle(m: AccountingToHost): Promise<void> {
    switch (m.type) {
      case 'query':
        return this.query(m.requestId, m.form);
      case 'export':
        return this.exportCsv(m.requestId, m.ids);
      case 'openJob':
        return this.openJob(m.id, m.what);
      case 'efficiency':
        return this.efficiency(m.requestId, m.ids);
      case 'command':
        await vscode.commands.executeCommand(m.command === 'addConnection' ? 'firecrest.addConnection' : 'firecrest.signIn');
        return;
      case 'rendered':
        this.log.debug(`webview drew ${m.rows} row(s) for request ${m.requestId}`);
        return;
      case 'ready':
        return;
    }
  }

  private async query(requestId: number, form: AccountingForm): Promise<void> {
    // A newer query supersedes the one still running.
    this.inFlight?.abort();
    const ctl = new AbortController();
    this.inFlight = ctl;
    const conns = this.services.connections.connections();
    const conn = conns.find((c) => c.profile.name === form.profile);
    if (!conn) {
      const message = conns.length ? vscode.l10n.t('There is no connection named "{0}".', form.profile) : vscode.l10n.t('No FirecREST connection is configured.');
      return this.post({ type: 'failed', requestId, failure: 'noConnection', message });
    }
    if (conn.state === 'signed-out') {
      return this.post({ type: 'failed', requestId, failure: 'signedOut', message: vscode.l10n.t('You are signed out of "{0}".', form.profile) });
    }
    let query;
    try {
      query = toAccountingQuery(form);
    } catch (e) {
      return this.post({ type: 'failed', requestId, failure: 'invalid', message: messageOf(e) });
    }
    try {
      const client = await this.services.connections.client(form.profile);
      const started = Date.now();
      const jobs = await client.accounting(form.system, { ...query, signal: ctl.signal });
      // Who cancelled a job is a uid: the user's own is shown by name.
      const me = jobs.some((j) => / by \d+$/.test(j.state)) ? await this.whoAmI(form.profile, form.system, () => client.userInfo(form.system, { signal: ctl.signal })) : undefined;
      const rows: AccountingRow[] = jobs.filter((j) => matchesForm(j, form)).map((j) => toRow(j, me));
      this.log.info(`${form.profile}/${form.system}: ${rows.length} of ${jobs.length} job(s) in ${Date.now() - started} ms`);
      // API v2 has no accounting route: its job listing looks back 7 days at most (time_window).
      const limit = client.apiVersion === 'v2' && query.startTime !== undefined && query.startTime < Date.now() / 1000 - V2_LOOKBACK_S
        ? vscode.l10n.t('API v2 lists finished jobs of the last 7 days only; older jobs are not shown')
        : undefined;
      this.last = { type: 'results', requestId, profile: form.profile, system: form.system, rows, queriedAt: Date.now(), limit };
      await this.post(this.last);
    } catch (e) {
      if (isCancellation(e) && ctl.signal.aborted) return;
      const message = messageOf(e);
      this.log.warn(`accounting query on ${form.profile}/${form.system} failed: ${message}`);
      await this.post({ type: 'failed', requestId, failure: e instanceof UnauthorizedError ? 'signedOut' : 'api', message });
    } finally {
      if (this.inFlight === ctl) this.inFlight = undefined;
    }
  }

  private whoAmI(profile: string, system: string, ask: () => Promise<UserInfo>): Promise<UserInfo['user'] | undefined> {
    const key = `${profile}\0${system}`;
    let p = this.users.get(key);
    if (!p) {
      p = ask().then((u) => u.user, () => {
        // A failure is not remembered: the next query asks again.
        this.users.delete(key);
        return undefined;
      });
      this.users.set(key, p);
    }
    return p;
  }

  private async exportCsv(requestId: number, ids: string[]): Promise<void> {
    const last = this.last;
    if (!last) return this.post({ type: 'exported', requestId, error: vscode.l10n.t('There are no results to export yet.') });
    const byId = new Map(last.rows.map((r) => [r.id, r]));
    const rows = ids.map((id) => byId.get(id)).filter((r): r is AccountingRow => !!r);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? this.services.context.globalStorageUri;
    const day = new Date().toISOString().slice(0, 10);
    const target = await this.pickSaveUri(vscode.Uri.joinPath(folder, `accounting-${last.system}-${day}.csv`));
    if (!target) return this.post({ type: 'exported', requestId });
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(toCsv(rows)));
      this.log.info(`exported ${rows.length} row(s) to ${target.toString(true)}`);
      const shown = target.scheme === 'file' ? target.fsPath : target.toString(true);
      await this.post({ type: 'exported', requestId, path: shown });
      void vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} job(s) to {1}.', rows.length, shown), vscode.l10n.t('Open')).then((pick) => pick === vscode.l10n.t('Open') && vscode.commands.executeCommand('vscode.open', target));
    } catch (e) {
      await this.post({ type: 'exported', requestId, error: messageOf(e) });
    }
  }

  /**
   * The use of finished jobs of the last results, from one side-car job (sacct); the rows keep it,
   * so an export has it too. Ids not in the last results are left out.
   */
  private async efficiency(requestId: number, ids: string[]): Promise<void> {
    const last = this.last;
    const finished = new Set(last?.rows.filter((r) => r.stateClass !== 'pending' && r.stateClass !== 'running').map((r) => r.id));
    const asked = ids.filter((id) => finished.has(id));
    if (!last || !asked.length) return this.post({ type: 'efficiency', requestId, rows: [], error: vscode.l10n.t('No finished job of these results to ask about.') });
    try {
      const client = await this.services.connections.client(last.profile);
      const home = await homeDirectory(this.services, client, last.profile, last.system);
      const { jobEfficiency } = await import('../../core/facts/efficiency.js');
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reading the use of {0} job(s) on {1} (a short job)', asked.length, last.system) }, () =>
        jobEfficiency(client, last.system, asked, { workingDirectory: home, scratchDir: sidecarScratch(home) }));
      const rows: AccountingEfficiency[] = [];
      for (const id of asked) {
        const e = report.jobs.get(id);
        if (!e) continue;
        const r: AccountingEfficiency = { id, cpuEfficiency: e.cpuEfficiency, memoryEfficiency: e.memoryEfficiency, timeUsed: e.timeLimitSeconds ? Math.min(1, e.elapsedSeconds / e.timeLimitSeconds) : undefined };
        rows.push(r);
        const row = last.rows.find((x) => x.id === id);
        if (row) Object.assign(row, { cpuEfficiency: r.cpuEfficiency, memoryEfficiency: r.memoryEfficiency, timeUsed: r.timeUsed });
      }
      this.log.info(`${last.profile}/${last.system}: efficiency of ${rows.length} of ${asked.length} job(s)`);
      await this.post({ type: 'efficiency', requestId, rows, usageRecorded: report.usageRecorded });
    } catch (e) {
      this.log.warn(`efficiency on ${last.profile}/${last.system} failed: ${messageOf(e)}`);
      await this.post({ type: 'efficiency', requestId, rows: [], error: messageOf(e) });
    }
  }

  private async openJob(id: string, what: 'details' | 'output'): Promise<void> {
    const last = this.last;
    if (!last?.rows.some((r) => r.id === id)) {
      this.log.warn(`openJob: job ${id} is not in the last results`);
      return;
    }
    const ref = { profile: last.profile, system: last.system, jobId: id };
    await vscode.commands.executeCommand(what === 'details' ? 'firecrest.showJobDetails' : 'firecrest.openJobOutput', ref);
  }
}
