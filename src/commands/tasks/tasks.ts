/**
 * The v1 tasks list (`GET /tasks`): a quick pick with each task's status in words; picking one
 * opens its details (status, times, data) in a read-only Markdown document (`firecrest-task:`).
 */
import * as vscode from 'vscode';
import type { V1TaskInfo } from '../../core/api';
import type { ExtensionServices } from '../../common/services';
import { argRecord } from '../shared/form';
import { v1Client } from '../shared/v1Client';

export const TASK_SCHEME = 'firecrest-task';

/** Status codes of §2.7.3 in words. */
const STATUS = (): Record<number, string> => ({
  100: vscode.l10n.t('Queued'),
  101: vscode.l10n.t('In progress'),
  200: vscode.l10n.t('Finished successfully'),
  300: vscode.l10n.t('Deleted on request'),
  301: vscode.l10n.t('Marked for expiration'),
  302: vscode.l10n.t('No longer valid'),
  400: vscode.l10n.t('Finished with errors'),
  110: vscode.l10n.t('Upload: waiting for the staging URL'),
  111: vscode.l10n.t('Upload: staging URL ready, waiting for the file'),
  112: vscode.l10n.t('Upload: file staged'),
  113: vscode.l10n.t('Upload: moving the file to the cluster'),
  114: 'Upload: finished',
  115: vscode.l10n.t('Upload: moving to the cluster failed'),
  116: vscode.l10n.t('Download: staging the file'),
  117: 'Download: ready',
  118: vscode.l10n.t('Download: staging failed'),
});

export function statusWords(t: Pick<V1TaskInfo, 'status' | 'description'>): string {
  return STATUS()[t.status] ?? (t.description || vscode.l10n.t('Status {0}', t.status));
}

function icon(status: number): string {
  if (status === 400 || status === 115 || status === 118) return '$(error)';
  if (status === 200 || status === 114 || status === 117) return '$(pass)';
  return '$(sync)';
}

/** What the task did, in a few words: the job it submitted, or its description. */
function summary(t: V1TaskInfo): string {
  const d = t.data && typeof t.data === 'object' ? (t.data as Record<string, unknown>) : undefined;
  if (d && typeof d.jobid === 'string') return `job ${d.jobid}`;
  if (d && (typeof d.source === 'string' || typeof d.target === 'string')) return String(d.target ?? d.source);
  return t.service ?? 'task';
}

export class TaskDetailsProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: ExtensionServices) {}

  /** `firecrest-task://<profile>/<task id>.md` */
  static uriFor(profile: string, taskId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: TASK_SCHEME, authority: encodeURIComponent(profile), path: `/${taskId}.md` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const profile = decodeURIComponent(uri.authority);
    const id = uri.path.replace(/^\//, '').replace(/\.md$/, '');
    const t = await v1Client(this.services, profile, vscode.l10n.t('The tasks list'));
    const task = t && (await t.client.tasks()).find((x) => x.id === id);
    if (!task) return vscode.l10n.t('# Task {0}\n\n_Not found: tasks expire (compute tasks after 24 h, storage tasks after 7 days)._\n', id);
    const row = (k: string, v: string | undefined) => `| ${k} | ${(v ?? '—').replace(/\|/g, '\\|')} |`;
    return [
      `# Task ${task.id}`,
      '',
      '| | |',
      '|---|---|',
      row('Status', `${task.status} · ${statusWords(task)}`),
      row('Service', task.service),
      row('System', task.system),
      row('Created', task.createdAt),
      row('Updated', task.updatedAt),
      '',
      '## Data',
      '',
      '```json',
      JSON.stringify(task.data, null, 2),
      '```',
      '',
    ].join('\n');
  }
}

/** Lists the tasks; `{profile, taskId}` opens one directly. Resolves with the opened document's URI. */
export async function showTasks(services: ExtensionServices, arg?: unknown): Promise<string | undefined> {
  const a = argRecord(arg);
  const t = await v1Client(services, typeof a.profile === 'string' ? a.profile : undefined, vscode.l10n.t('The tasks list'));
  if (!t) return undefined;
  let id = typeof a.taskId === 'string' ? a.taskId : undefined;
  if (!id) {
    const tasks = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing tasks…') }, () => t.client.tasks());
    if (tasks.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No tasks on "{0}" (tasks expire after a day or a week).', t.profile));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      tasks.map((task) => ({
        label: `${icon(task.status)} ${statusWords(task)}`,
        description: `${task.status} · ${summary(task)}${task.system ? ` · ${task.system}` : ''}`,
        detail: `${task.id} · updated ${task.updatedAt ?? '?'}`,
        task,
      })),
      { title: vscode.l10n.t('Tasks of {0}', t.profile), placeHolder: vscode.l10n.t('Pick a task to see its details'), matchOnDescription: true, matchOnDetail: true },
    );
    if (!pick) return undefined;
    id = pick.task.id;
  }
  const uri = TaskDetailsProvider.uriFor(t.profile, id);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true });
  return uri.toString();
}
