/** Cancel Job: one job, or every selected job in the tree, after a modal confirmation. */
import { fields, flag } from '../common/commandArgs';
import * as vscode from 'vscode';
import { asJobRef, type JobRef } from '../common/jobRef';
import { isArrayParent } from '../core/jobArrays';
import type { ExtensionServices } from '../common/services';
import type { JobsViewControl } from '../common/viewControls';
import { resolveJob } from './pickers';
import { messageOf } from '../core/errors';

export async function cancelJob(services: ExtensionServices, jobs: JobsViewControl, arg?: unknown, selected?: unknown): Promise<string[]> {
  let refs: JobRef[];
  const clicked = asJobRef(arg);
  const many = Array.isArray(selected) ? selected.map(asJobRef).filter((r): r is JobRef => r !== undefined && !r.job?.isFinal) : [];
  // VS Code passes the clicked node and the selection; the clicked one may lie outside it.
  if (clicked && many.some((r) => r.jobId === clicked.jobId && r.system === clicked.system)) refs = many;
  else if (clicked) refs = [clicked];
  else {
    const picked = await resolveJob(services, undefined, { activeOnly: true, placeHolder: vscode.l10n.t('Cancel which job?') });
    if (!picked) return [];
    refs = [picked];
  }
  const skipConfirm = fields(arg, { confirm: flag }).confirm === false;
  if (!skipConfirm) {
    const names = refs.map((r) => (!r.job ? r.jobId : isArrayParent(r.job) ? vscode.l10n.t('{0} ({1}, an array of {2} tasks)', r.jobId, r.job.name, r.job.array?.count ?? '?') : `${r.jobId} (${r.job.name})`)).join(', ');
    const ok = refs.length > 1 ? vscode.l10n.t('Cancel Jobs') : vscode.l10n.t('Cancel Job');
    const pick = await vscode.window.showWarningMessage(refs.length > 1 ? vscode.l10n.t('Cancel {0} jobs: {1}?', refs.length, names) : vscode.l10n.t('Cancel job {0} on {1}?', names, refs[0].system), { modal: true }, ok);
    if (pick !== ok) return [];
  }
  const done: string[] = [];
  const failures: string[] = [];
  for (const r of refs) {
    const profile = r.profile || services.connections.defaultProfileName();
    // Their end is what the user asked for: one summary here, no warning per job when they end.
    // Said before the cancel goes out: the tree may see the first job end while the next is cancelled.
    const takeBack = jobs.cancelling({ ...r, profile: profile ?? r.profile });
    try {
      const client = await services.connections.client(profile);
      // A task of an array (or its tasks not started) alone; an array's id cancels every task.
      if (r.job?.array && !isArrayParent(r.job)) await client.cancelJobTask(r.system, r.job);
      else await client.cancelJob(r.system, r.jobId);
      done.push(r.jobId);
    } catch (e) {
      takeBack();
      failures.push(`${r.jobId}: ${messageOf(e)}`);
    }
  }
  jobs.refresh();
  if (failures.length) throw new Error(vscode.l10n.t('Could not cancel {0}', failures.join('; ')));
  if (done.length > 1) void vscode.window.showInformationMessage(vscode.l10n.t('Cancelled {0} jobs: {1}.', done.length, done.join(', ')));
  return done;
}
