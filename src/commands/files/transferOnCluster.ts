/**
 * Move/Copy/Sync on Cluster… (API v1 internal transfers): a job on the cluster's transfer partition
 * that runs `mv`, `cp` or `rsync`, optionally only after another job succeeded. The command returns
 * once the job is submitted; the Jobs view follows it.
 */
import * as vscode from 'vscode';
import type { V1InternalTransferKind } from '../../core/api';
import { InvalidInputError } from '../../core/errors';
import { FIRECREST_SCHEME, FirecrestUri } from '../../core/uri';
import type { JobRef } from '../../common/jobRef';
import type { ExtensionServices } from '../../common/services';
import type { JobsViewControl } from '../../common/viewControls';
import { argRecord, runForm } from '../shared/form';
import { checkAbsolutePath, checkJobId, checkTimeLimit } from '../shared/rules';
import { v1Client } from '../shared/v1Client';

type Kind = Extract<V1InternalTransferKind, 'mv' | 'cp' | 'rsync'>;

/** Built when asked, so in the display language. */
const KINDS = (): { op: Kind; label: string; verb: string; detail: string }[] => [
  { op: 'mv', label: vscode.l10n.t('Move'), verb: vscode.l10n.t('Move'), detail: vscode.l10n.t('mv --force: the source is gone afterwards') },
  { op: 'cp', label: vscode.l10n.t('Copy'), verb: vscode.l10n.t('Copy'), detail: 'cp -dR --preserve=all' },
  { op: 'rsync', label: vscode.l10n.t('Sync'), verb: vscode.l10n.t('Sync'), detail: vscode.l10n.t('rsync -av: only what differs is copied') },
];

export interface TransferOnClusterResult extends JobRef {
  kind: Kind;
  taskId?: string;
}

function sourceUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg.scheme === FIRECREST_SCHEME ? arg : undefined;
  const a = argRecord(arg);
  if (a.uri instanceof vscode.Uri) return sourceUri(a.uri);
  if (typeof a.uri === 'string') return vscode.Uri.parse(a.uri);
  if (a.resourceUri instanceof vscode.Uri) return sourceUri(a.resourceUri);
  return undefined;
}

async function askSource(): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Move/Copy/Sync on Cluster'),
    prompt: vscode.l10n.t('File or folder on the cluster'),
    value: active?.scheme === FIRECREST_SCHEME ? active.toString(true) : `${FIRECREST_SCHEME}://`,
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        return checkAbsolutePath(FirecrestUri.parse(v.trim()).path);
      } catch {
        return `A ${FIRECREST_SCHEME}:// URI, e.g. ${FIRECREST_SCHEME}://cluster/home/alice/data`;
      }
    },
  });
  return value === undefined ? undefined : vscode.Uri.parse(value.trim());
}

export async function transferOnCluster(services: ExtensionServices, jobs: JobsViewControl, arg?: unknown): Promise<TransferOnClusterResult | undefined> {
  const a = argRecord(arg);
  const uri = sourceUri(arg) ?? (await askSource());
  if (!uri) return undefined;
  const ref = FirecrestUri.parse(uri);
  const sourceProblem = checkAbsolutePath(ref.path);
  if (sourceProblem) throw new InvalidInputError(`${ref.path}: ${sourceProblem}`);
  const t = await v1Client(services, ref.profile ?? services.connections.defaultProfileName(), vscode.l10n.t('Move/Copy/Sync on Cluster'));
  if (!t) return undefined;

  let kind = KINDS().find((k) => k.op === a.kind);
  if (a.kind !== undefined && !kind) throw new InvalidInputError(vscode.l10n.t('Unknown transfer \'{0}\': use mv, cp or rsync.', JSON.stringify(a.kind)));
  kind ??= await vscode.window.showQuickPick(KINDS().map((k) => ({ ...k, description: k.op })), { title: vscode.l10n.t('Move/Copy/Sync {0} on {1}', ref.basename, ref.system), ignoreFocusOut: true });
  if (!kind) return undefined;

  const answers = await runForm(`${kind.verb} ${ref.basename} on ${ref.system}`, [
    { key: 'target', prompt: vscode.l10n.t('Destination path on the cluster'), value: ref.path, check: (v) => checkAbsolutePath(v) ?? (v === ref.path ? 'Choose a different destination.' : undefined) },
    { key: 'afterJob', prompt: vscode.l10n.t('Run after job (its id; the transfer starts once it succeeded). Empty: start now.'), value: '', check: checkJobId },
    { key: 'time', prompt: vscode.l10n.t('Time limit of the transfer job (empty: the server default, 2 hours)'), value: '', placeHolder: vscode.l10n.t('e.g. 30:00 or 1-00:00:00'), check: checkTimeLimit },
  ], a);
  if (!answers) return undefined;

  const job = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Submitting the {0} job…', kind.label.toLowerCase()) }, () =>
    t.client.internalTransfer(ref.system, kind.op, {
      sourcePath: ref.path,
      targetPath: answers.target,
      stageOutJobId: answers.afterJob || undefined,
      time: answers.time || undefined,
      account: services.connections.connections().find((c) => c.profile.name === t.profile)?.profile.defaultAccount,
    }),
  );
  const result: TransferOnClusterResult = { profile: t.profile, system: job.system, jobId: job.jobId, kind: kind.op, taskId: job.taskId };
  jobs.track(result);
  const after = answers.afterJob ? vscode.l10n.t(' (after job {0})', answers.afterJob) : '';
  const show = vscode.l10n.t('Show in Jobs');
  const follow = vscode.l10n.t('Follow Output');
  void vscode.window.showInformationMessage(vscode.l10n.t('{0} job {1} submitted on {2}{3}: {4} → {5}', kind.verb, job.jobId, job.system, after, ref.path, answers.target), show, follow).then((pick) => {
    if (pick === show) void jobs.reveal(result);
    else if (pick === follow) void vscode.commands.executeCommand('firecrest.followJobOutput', result);
  });
  return result;
}
