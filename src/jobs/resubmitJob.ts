/**
 * Resubmit Exactly: a job submitted from this editor runs again with the script text and every
 * option it was submitted with (provenance record: working directory, name, account, partition,
 * reservation, environment). Any other job: the scheduler's copy of its script (metadata, v2), in
 * the same working directory, with the account and partition of its record.
 */
import * as vscode from 'vscode';
import type { JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import type { JobsViewControl } from '../common/viewControls';
import type { JobSubmission } from '../core/model';
import { announceSubmitted } from './announceSubmitted';
import { resolveJob } from './pickers';
import type { ProvenanceStore } from './provenance';
import { messageOf } from '../core/errors';

export async function resubmitJob(services: ExtensionServices, jobs: JobsViewControl, provenance: ProvenanceStore, arg?: unknown): Promise<JobRef | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Resubmit which job?') });
  if (!ref) return undefined;
  const client = await services.connections.client(ref.profile);
  const record = await provenance.get(ref.profile, ref.system, ref.jobId);
  let submission: JobSubmission;
  if (record) {
    const o = record.options;
    // The dependency is not replayed: the job it waited for has ended by now.
    submission = { script: record.script, workingDirectory: o.workingDirectory, name: o.name, account: o.account, partition: o.partition, reservation: o.reservation, env: record.env };
  } else {
    const [job, meta] = await Promise.all([client.job(ref.system, ref.jobId), client.jobMetadata(ref.system, ref.jobId)]);
    if (!meta.script) throw new Error(vscode.l10n.t('The scheduler did not keep the script of job {0}, and it was not submitted from this editor; it cannot be resubmitted from here.', ref.jobId));
    if (!job.workingDirectory) throw new Error(vscode.l10n.t('Job {0} has no working directory on record.', ref.jobId));
    submission = { script: meta.script, workingDirectory: job.workingDirectory, name: job.name || undefined, account: job.account || undefined, partition: job.partition || undefined };
  }
  const jobId = await client.submitJob(ref.system, submission);
  const next: JobRef = { profile: ref.profile, system: ref.system, jobId };
  // The new job is recorded too: it ran exactly this.
  if (record) {
    await provenance.record({ ...record, jobId, submittedAt: new Date().toISOString() }).catch((e: unknown) => services.log.withTag('jobs').warn(`could not keep the record of job ${jobId}: ${messageOf(e)}`));
  }
  announceSubmitted(next, jobs, `Resubmitted ${ref.jobId} as`, services.walkthrough);
  return next;
}
