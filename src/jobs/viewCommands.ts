/** The Jobs view's title and error-node actions: refresh, all users, filter, retry. */
import { fields, text } from '../common/commandArgs';
import * as vscode from 'vscode';
import type { Log } from '../common/services';
import type { JobsViewControl } from '../common/viewControls';
import { registerCommand } from '../common/commandWrapper';

export function registerJobsViewCommands(jobs: JobsViewControl, log: Log): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.jobs.refresh', log, () => jobs.refresh()),
    registerCommand('firecrest.jobs.retry', log, (node?: unknown) => jobs.retry(node)),
    registerCommand('firecrest.jobs.showAllUsers', log, () => jobs.setAllUsers(true)),
    registerCommand('firecrest.jobs.showMyJobs', log, () => jobs.setAllUsers(false)),
    registerCommand('firecrest.jobs.clearFilter', log, () => jobs.setFilter({})),
    registerCommand('firecrest.jobs.groupBy', log, async (arg?: unknown) => {
      const config = vscode.workspace.getConfiguration('firecrest.jobs');
      const current = config.get<string>('groupBy') ?? 'state';
      const choices = [
        { label: 'State', value: 'state', description: vscode.l10n.t('running, pending, recently finished') },
        { label: 'Partition', value: 'partition' },
        { label: 'Name', value: 'name', description: vscode.l10n.t('runs of the same script side by side') },
      ];
      const value = text(arg) ?? (await vscode.window.showQuickPick(choices.map((c) => ({ ...c, picked: c.value === current, detail: c.value === current ? 'now' : undefined })), { title: vscode.l10n.t('Group jobs by') }))?.value;
      if (!value || !choices.some((c) => c.value === value)) return;
      // A setting, so that the choice is remembered (and can differ per workspace).
      await config.update('groupBy', value === 'state' ? undefined : value, vscode.ConfigurationTarget.Global);
    }),
    registerCommand('firecrest.jobs.filter', log, async (arg?: unknown) => {
      // `{account?, name?}` from scripts and tests; otherwise ask.
      const given = fields(arg, { account: text, name: text });
      if (given.account !== undefined || given.name !== undefined) {
        jobs.setFilter(given);
        return;
      }
      const current = jobs.filter;
      const value = await vscode.window.showInputBox({
        title: vscode.l10n.t('Filter jobs'),
        prompt: vscode.l10n.t('Text found in a job\'s name, id, partition or state, and/or account:NAME (empty clears the filter)'),
        value: [current.account ? `account:${current.account}` : '', current.name ?? ''].filter(Boolean).join(' '),
      });
      if (value === undefined) return;
      const account = /(?:^|\s)account:(\S+)/.exec(value)?.[1];
      const name = value.replace(/(?:^|\s)account:\S+/, '').trim() || undefined;
      jobs.setFilter({ account, name });
    }),
  );
}
