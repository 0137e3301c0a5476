/**
 * Files the servers and the extension leave in the user's folders for their own work: upstream
 * v2's transfer-job logs (`.f7t_file_handling_job_*`), the extension's temporary uploads, symlinks
 * and search outputs (`.f7t-*`). Hidden from the Explorer (files.exclude defaults in package.json)
 * and from Go to File on Cluster.
 */
const OWN = /(^|\/)(\.f7t_file_handling_job_[^/]*|\.f7t-[^/]*)$/;

/** FILES_EXCLUDE in package.json holds the same names as glob patterns. */
export const FILES_EXCLUDE_GLOBS = ['**/.f7t_file_handling_job_*', '**/.f7t-*'];

export function isOwnFile(path: string): boolean {
  return OWN.test(path);
}
