/**
 * Interrupted staged uploads, kept in the extension's global state (never in the workspace: the
 * state holds presigned URLs) so that the next upload of the same file to the same place resumes
 * with the parts still missing. An entry goes once its upload succeeded or was cancelled.
 */
import type * as vscode from 'vscode';
import type { StagedUploadState } from '../core/transfer/stagedTransfers';

const KEY = 'firecrest.stagedUploads';

interface Entry {
  key: string;
  state: StagedUploadState;
}

export class UploadResumeStore {
  constructor(private readonly memento: vscode.Memento) {}

  private entries(): Entry[] {
    return this.memento.get<Entry[]>(KEY, []);
  }

  private static key(profile: string | undefined, localPath: string, state: { system: string; remotePath: string }): string {
    return JSON.stringify([profile ?? '', state.system, state.remotePath, localPath]);
  }

  /** The saved state of an upload of `localPath` to `system:remotePath`, unless its URLs expired. */
  find(profile: string | undefined, localPath: string, system: string, remotePath: string): StagedUploadState | undefined {
    const key = UploadResumeStore.key(profile, localPath, { system, remotePath });
    const hit = this.entries().find((e) => e.key === key)?.state;
    if (hit?.expiresAt !== undefined && hit.expiresAt <= Date.now()) return undefined;
    return hit;
  }

  async save(profile: string | undefined, localPath: string, state: StagedUploadState): Promise<void> {
    const key = UploadResumeStore.key(profile, localPath, state);
    const now = Date.now();
    // Expired entries cannot be resumed any more: they are dropped on every write.
    const rest = this.entries().filter((e) => e.key !== key && (e.state.expiresAt === undefined || e.state.expiresAt > now));
    await this.memento.update(KEY, [...rest, { key, state }]);
  }

  async forget(profile: string | undefined, localPath: string, system: string, remotePath: string): Promise<void> {
    const key = UploadResumeStore.key(profile, localPath, { system, remotePath });
    await this.memento.update(KEY, this.entries().filter((e) => e.key !== key));
  }
}
