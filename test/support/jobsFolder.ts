/**
 * A folder of its own in the user's home for a suite's jobs to run in, so their `slurm-<id>.out`
 * files go with it instead of piling up in the test user's home (a home of thousands of files is
 * slow to create files in). vscode-free: the host and the UI suites share it.
 */
import { randomBytes } from 'node:crypto';
import type { FirecrestClient } from '../../src/core/client';

/** Creates `<home>/<prefix>-<random>`; `remove` deletes it and never fails the suite. */
export async function jobsFolder(client: FirecrestClient, system: string, home: string, prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = `${home}/${prefix}-${randomBytes(4).toString('hex')}`;
  await client.mkdir(system, path);
  return { path, remove: () => client.remove(system, path).catch(() => undefined) };
}
