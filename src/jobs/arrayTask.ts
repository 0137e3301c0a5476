/**
 * Output commands on an array's parent: an array has no output of its own, each task has. The
 * user picks the task (running ones first, then the ended ones, then the waiting); a task then
 * stands for the job. On API v2 a task is looked at under its own numeric id (a v2 path takes no
 * `12_3`), which the listing gives while the task is queued or running.
 */
import * as vscode from 'vscode';
import type { JobRef } from '../common/jobRef';
import type { FirecrestApi } from '../core/api';
import { isArrayParent } from '../core/jobArrays';
import type { Job } from '../core/model';

/** The ref itself, the task picked for an array's parent, or undefined when the user dismissed the pick. */
export async function jobOrTask(client: FirecrestApi, ref: JobRef, what: string): Promise<JobRef | undefined> {
  const job = ref.job ?? (await client.job(ref.system, ref.jobId));
  if (!isArrayParent(job)) return { ...ref, job };
  const tasks = (await client.jobs(ref.system)).filter((j) => j.array?.jobId === job.id && j.array.taskId !== undefined);
  if (!tasks.length) throw new Error(vscode.l10n.t('No task of array {0} has started yet: there is no output to show.', job.id));
  const rank = (j: Job): number => (j.isFinal ? 1 : 0);
  tasks.sort((a, b) => rank(a) - rank(b) || a.array!.taskId! - b.array!.taskId!);
  const pick = await vscode.window.showQuickPick(
    tasks.map((t) => ({ label: t.id, description: t.state, task: t })),
    { placeHolder: vscode.l10n.t('{0} of which task of array {1}?', what, job.id), matchOnDescription: true },
  );
  if (!pick) return undefined;
  return { ...ref, jobId: pick.task.ownId ?? pick.task.id, job: pick.task };
}
