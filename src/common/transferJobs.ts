/**
 * Jobs the servers start for file operations (v2 transfer jobs, by the names the server gives
 * them; v1's internal transfer jobs by their default names), and the extension's own Search on
 * Cluster jobs (`f7t-search`): the extension's saves, uploads and searches start them, and they
 * must not bury the user's own jobs (Jobs view, accounting).
 */
const TRANSFER_JOB = /^(MoveFiles|CopyFiles|DeleteFiles|CompressFiles|ExtractFiles|IngressFileTransfer|EgressFileTransfer|(cp|mv|rsync|rm|compress|extract)-job|f7t-search)$/;

export function isTransferJob(job: { name: string }): boolean {
  return TRANSFER_JOB.test(job.name);
}
