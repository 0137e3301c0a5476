/**
 * The elements of the Jobs tree and how each becomes a TreeItem. Job rows are plain objects made
 * per group on expand; their tooltips are built only when hovered (`resolveTreeItem`).
 */
import * as vscode from 'vscode';
import { messageOf, NotSupportedError, UnauthorizedError } from '../../core/errors';
import { arrayCounts, describeCounts } from '../../core/jobArrays';
import type { Job } from '../../core/model';
import { groupLabel, describeJob, iconOf, type DescriptionField, type JobGroup } from '../../common/jobFormat';
import { cannotReach, clockTime } from '../../common/reachability';

export type JobsNode =
  | { kind: 'connection'; profile: string; signedIn: boolean }
  | { kind: 'system'; profile: string; system: string }
  | { kind: 'group'; profile: string; system: string; group: JobGroup; count: number }
  /** Jobs sharing a partition or a name (`firecrest.jobs.groupBy`), running first, then pending, then finished. */
  | { kind: 'bucket'; profile: string; system: string; by: 'partition' | 'name'; key: string; jobs: Job[] }
  /** A job; an array's parent has its tasks (and expands to them), a task names its array. */
  | { kind: 'job'; profile: string; system: string; jobId: string; job: Job; canAttach: boolean; tasks?: readonly Job[] }
  | { kind: 'error'; profile: string; system?: string; error: unknown }
  /** The server does not answer: one row for the connection; the jobs below are as of `asOf`. */
  | { kind: 'unreachable'; profile: string; site: string; asOf?: number }
  | { kind: 'message'; profile: string; system?: string; text: string };

const GROUP_ICON: Record<JobGroup, string> = { running: 'run-all', pending: 'watch', finished: 'history', transfers: 'arrow-swap' };

export function nodeId(n: JobsNode): string {
  switch (n.kind) {
    case 'connection':
      return `c/${n.profile}`;
    case 'system':
      return `s/${n.profile}/${n.system}`;
    case 'group':
      return `g/${n.profile}/${n.system}/${n.group}`;
    case 'bucket':
      return `b/${n.profile}/${n.system}/${n.by}/${n.key}`;
    case 'job':
      return `j/${n.profile}/${n.system}/${n.jobId}`;
    case 'error':
      return `e/${n.profile}/${n.system ?? ''}`;
    case 'message':
      return `m/${n.profile}/${n.system ?? ''}`;
    case 'unreachable':
      return `u/${n.profile}`;
  }
}

/**
 * Capability tokens the menus match on (`viewItem =~ /;cancelable;/`). The output of an array's
 * parent is one of its tasks' (the command asks which); a row of tasks not started has none yet.
 * A task is resubmitted with its array, from the parent.
 */
export function jobContextValue(job: Job, canAttach: boolean, parent = false): string {
  const output = !job.array?.pending;
  const resubmit = parent || !job.array;
  let v = `;job;${output ? 'output;' : ''}details;${resubmit ? 'resubmit;' : ''}${parent ? 'array;' : job.array ? 'task;' : ''}`;
  if (!job.isFinal) v += 'cancelable;';
  else if (!parent && !job.array?.pending) v += 'efficiency;';
  if (canAttach && job.stateClass === 'running' && !parent) v += 'attachable;';
  return v;
}

/** `2 running · 1 pending · 3 done (1 failed)`: jobs, or an array's tasks (a row of waiting tasks counts each). */
export function bucketCounts(jobs: readonly Job[]): string {
  return describeCounts(arrayCounts(jobs));
}

export function errorMessage(e: unknown): string {
  return messageOf(e);
}

export function toTreeItem(n: JobsNode, nowSeconds: number, fields?: readonly DescriptionField[]): vscode.TreeItem {
  const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
  switch (n.kind) {
    case 'connection': {
      const item = new vscode.TreeItem(n.profile, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon('plug');
      item.contextValue = `;connection;${n.signedIn ? 'signedIn' : 'signedOut'};`;
      item.id = nodeId(n);
      return item;
    }
    case 'system': {
      const item = new vscode.TreeItem(n.system, vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon('server');
      item.contextValue = ';system;';
      item.id = nodeId(n);
      return item;
    }
    case 'group': {
      const state = n.count === 0 ? vscode.TreeItemCollapsibleState.None : n.group === 'finished' || n.group === 'transfers' ? Collapsed : vscode.TreeItemCollapsibleState.Expanded;
      const item = new vscode.TreeItem(groupLabel(n.group), state);
      item.description = String(n.count);
      item.iconPath = new vscode.ThemeIcon(GROUP_ICON[n.group]);
      item.contextValue = `;jobGroup;${n.group};`;
      item.id = nodeId(n);
      return item;
    }
    case 'bucket': {
      const active = n.jobs.some((j) => !j.isFinal);
      const item = new vscode.TreeItem(n.key || (n.by === 'partition' ? vscode.l10n.t('(no partition)') : vscode.l10n.t('(no name)')), active ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
      item.description = bucketCounts(n.jobs);
      item.iconPath = new vscode.ThemeIcon(n.by === 'partition' ? 'server-process' : 'symbol-string');
      item.contextValue = `;jobGroup;bucket;${n.by};`;
      item.id = nodeId(n);
      return item;
    }
    case 'job': {
      const parent = n.tasks !== undefined;
      // A parent: `12 name`, its tasks' counts; it opens while any task runs. A task: `12_3`.
      const open = parent && !n.job.isFinal && n.job.stateClass !== 'pending' ? vscode.TreeItemCollapsibleState.Expanded : Collapsed;
      const item = new vscode.TreeItem(`${n.job.id} ${n.job.name}`, parent ? open : vscode.TreeItemCollapsibleState.None);
      item.description = parent ? `array · ${bucketCounts(n.tasks!)}` : describeJob(n.job, nowSeconds, fields);
      const icon = iconOf(n.job);
      item.iconPath = new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
      item.contextValue = jobContextValue(n.job, n.canAttach, parent);
      item.id = nodeId(n);
      return item;
    }
    case 'error': {
      const signIn = n.error instanceof UnauthorizedError;
      const unsupported = n.error instanceof NotSupportedError;
      const item = new vscode.TreeItem(signIn ? vscode.l10n.t('Not signed in') : vscode.l10n.t('Could not load jobs'), vscode.TreeItemCollapsibleState.None);
      item.description = errorMessage(n.error);
      item.tooltip = errorMessage(n.error);
      item.iconPath = new vscode.ThemeIcon(signIn ? 'account' : 'error', signIn ? undefined : new vscode.ThemeColor('errorForeground'));
      item.contextValue = signIn ? ';error;signin;' : unsupported ? ';error;' : ';error;retry;';
      item.id = nodeId(n);
      item.command = signIn
        ? { title: vscode.l10n.t('Sign In'), command: 'firecrest.signIn', arguments: [n] }
        : unsupported ? undefined : { title: vscode.l10n.t('Retry'), command: 'firecrest.jobs.retry', arguments: [n] };
      return item;
    }
    case 'unreachable': {
      const item = new vscode.TreeItem(cannotReach(n.site), vscode.TreeItemCollapsibleState.None);
      item.description = n.asOf !== undefined ? vscode.l10n.t('jobs as of {0} · trying again', clockTime(n.asOf)) : vscode.l10n.t('trying again');
      item.tooltip = unreachableTooltip(n.site, n.asOf);
      item.iconPath = new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('list.warningForeground'));
      item.contextValue = ';unreachable;';
      item.id = nodeId(n);
      item.command = { title: vscode.l10n.t('Retry'), command: 'firecrest.retryConnection', arguments: [{ profile: n.profile }] };
      return item;
    }
    case 'message': {
      const item = new vscode.TreeItem(n.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('info');
      item.contextValue = ';message;';
      item.id = nodeId(n);
      return item;
    }
  }
}

function unreachableTooltip(site: string, asOf: number | undefined): string {
  const stopped = asOf !== undefined ? ` ${vscode.l10n.t('The jobs below are as they were at {0}; their clocks are stopped.', clockTime(asOf))}` : '';
  return `${vscode.l10n.t('FirecREST at {0} does not answer.', site)}${stopped} ${vscode.l10n.t('It is tried again by itself; Retry tries now. The details are in the FirecREST log.')}`;
}
