/**
 * Saving without ever truncating the target: upload to a temporary name next to it, then move it
 * over the target. The target is either the old file or the new one; on failure the temporary
 * file is removed and the error propagates (the editor stays dirty).
 */
import { randomBytes } from 'node:crypto';
import type { FirecrestApi } from '../core/api';
import type { TransferJob } from '../core/model';
import type { FirecrestUri } from '../core/uri';
import { permissionsToMode } from './entries';

export async function replaceAtomically(
  api: FirecrestApi,
  /** Creates a file with the data (direct upload, or staged above the direct limit). */
  upload: (file: FirecrestUri, data: Uint8Array, target: FirecrestUri) => Promise<void>,
  target: FirecrestUri,
  data: Uint8Array,
  /** The target's current `rwx` text, kept on the new file; undefined for a new file or a link. */
  permissions: string | undefined,
  /** Called with folders whose content changed in the background (the job logs' folder). */
  changed: (dir: FirecrestUri) => void,
): Promise<void> {
  const tmp = target.dirname.joinPath(`.${target.basename}.firecrest-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await upload(tmp, data, target);
    // The move carries the temporary file's mode; keep the target's (job scripts are often +x).
    const mode = permissions ? permissionsToMode(permissions) : undefined;
    if (mode) await api.chmod(target.system, tmp.path, mode);
    // v2: a batch job, waited for and its log checked by the client: a failed move throws.
    const job = await api.move(target.system, tmp.path, target.path);
    jobLogsGone(target, job, changed);
  } catch (e) {
    await api.remove(target.system, tmp.path).catch(() => undefined);
    throw e;
  }
}

/**
 * A v2 move's job wrote two log files into the user's work directory; the client removes them once
 * the move is verified (core, `waitForTransferJob`). A listing of that folder taken meanwhile may
 * still show them: the folder is refreshed.
 */
export function jobLogsGone(near: FirecrestUri, job: TransferJob | undefined, changed: (dir: FirecrestUri) => void): void {
  const dirs = new Map([job?.outputLog, job?.errorLog].filter((p): p is string => !!p).map((p) => near.with({ path: p }).dirname).map((d) => [d.toString(), d]));
  for (const d of dirs.values()) changed(d);
}
