/**
 * Resubmit Job: the same script again, from the scheduler's copy (metadata), in the same working
 * directory, with the account and partition of the original record.
 */
import type { JobRef } from '../../common/jobRef';
import type { ExtensionServices } from '../../common/services';
import type { JobsViewControl } from '../../common/viewControls';
import { announceSubmitted } from './announceSubmitted';
import { resolveJob } from './pickers';

export async function resubmitJob(services: ExtensionServices, jobs: JobsViewControl, arg?: unknown): Promise<JobRef | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: 'Resubmit which job?' });
  if (!ref) return undefined;
  const client = await services.connections.client(ref.profile);
  const [job, meta] = await Promise.all([client.job(ref.system, ref.jobId), client.jobMetadata(ref.system, ref.jobId)]);
  if (!meta.script) throw new Error(`The scheduler did not keep the script of job ${ref.jobId}; it cannot be resubmitted from here.`);
  if (!job.workingDirectory) throw new Error(`Job ${ref.jobId} has no working directory on record.`);
  const jobId = await client.submitJob(ref.system, {
    script: meta.script,
    workingDirectory: job.workingDirectory,
    name: job.name || undefined,
    account: job.account || undefined,
    partition: job.partition || undefined,
  });
  const next: JobRef = { profile: ref.profile, system: ref.system, jobId };
  announceSubmitted(next, jobs, `Resubmitted ${ref.jobId} as`);
  return next;
}
