/**
 * One file upload under its progress notification, resumable: the staged upload's state goes to
 * the UploadResumeStore after every part, a saved state of the same file and target is continued
 * (only the missing parts are sent), and a failed upload offers Resume while its URLs are valid.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../core/client';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isCancellation, PermissionDeniedError, messageOf } from '../../core/errors';
import type { TransferResult } from '../../core/transfer/stagedTransfers';
import { isRetryable } from '../../core/transfer/transferDeps';
import type { FirecrestUri } from '../../core/uri';
import { isFinalFailure } from '../../common/failureKinds';
import type { Log } from '../../common/services';
import type { TransferEvents } from '../../common/transferEvents';
import { withTransferProgress } from '../../common/transferProgress';
import type { UploadResumeStore } from '../../common/uploadResumeStore';

export interface UploadDeps {
  log: Log;
  events?: TransferEvents;
  resume?: UploadResumeStore;
}

/** What an upload did: its result and how many parts an earlier attempt had already sent. */
export interface UploadOutcome {
  result: TransferResult;
  resumedParts: number;
}

/** An upload that stopped with parts kept for a resume: the message offers the Resume action. */
export class InterruptedUploadError extends Error {
  constructor(message: string, readonly local: string, readonly target: FirecrestUri, readonly partsDone: number, readonly partsTotal: number, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export const RESUME_COMMAND = 'firecrest.files.resumeUpload';

/** Uploads `local` to `target`, continuing a saved interrupted upload of the same file when there is one. */
export async function uploadOne(deps: UploadDeps, client: FirecrestClient, local: string, target: FirecrestUri): Promise<UploadOutcome> {
  const { resume, log } = deps;
  const saved = await resume?.find(target.profile, local, target.system, target.path);
  if (saved) log.info(`Resuming the upload of ${local} to ${target.toString()} (${saved.done.length} of ${saved.partsUploadUrls.length} parts already sent)`);
  let saving = Promise.resolve();
  let kept = saved !== undefined;
  const forget = async (): Promise<void> => {
    await saving;
    if (kept) await resume?.forget(target.profile, local, target.system, target.path);
    kept = false;
  };
  let last: { done: number; total: number } | undefined;
  const run = (state = saved): Promise<TransferResult> => withTransferProgress(deps.events, { direction: 'upload', remote: target.toString(), local, title: vscode.l10n.t('Uploading {0}', target.basename) }, ({ signal, onProgress }) =>
    client.transfers.uploadFile(target.system, local, target.path, {
      signal,
      onProgress,
      resume: state,
      onState: (s) => {
        kept = true;
        last = { done: s.done.length, total: s.partsUploadUrls.length };
        saving = saving.then(() => resume?.save(target.profile, local, s)).catch((e: unknown) => log.warn(`Keeping the upload state of ${local} failed: ${messageOf(e)}`));
      },
    }));
  // A large file is staged and moved into place by a job at the end: a folder the user cannot
  // write is found out first, before the whole file is sent for nothing.
  if (!saved) await checkWritable(client, local, target);
  try {
    let result: TransferResult;
    let resumedParts = saved?.done.length ?? 0;
    try {
      result = await run();
    } catch (e) {
      // A saved state that no longer fits (file changed, URLs or upload refused): start afresh
      // once. A dropped connection or a busy server is no such reason: the parts stay kept.
      if (!saved || isCancellation(e) || isRetryable(e)) throw e;
      log.warn(`Resuming failed (${messageOf(e)}); uploading ${local} from the start`);
      await forget();
      resumedParts = 0;
      result = await run(undefined);
    }
    await forget();
    // The client started afresh by itself (the saved upload's job or URLs were dead): nothing was kept.
    if (result.restarted !== undefined) {
      log.info(`Upload of ${local} to ${target.toString()} sent afresh: ${result.restarted}`);
      resumedParts = 0;
    }
    return { result, resumedParts };
  } catch (e) {
    // Cancelled: the server side was cancelled too, nothing to resume.
    if (isCancellation(e)) {
      await forget();
      throw e;
    }
    await saving;
    // Permission or space on the cluster: sending the parts again would fail again. No Resume.
    if (isFinalFailure(e)) {
      await forget();
      throw e;
    }
    // Failed with parts kept (and not yet completed): resumable while the URLs are valid.
    if (resume && last && last.done > 0) {
      const why = messageOf(e);
      throw new InterruptedUploadError(vscode.l10n.t('The upload of {0} stopped after {1} of {2} parts: {3}', target.basename, last.done, last.total, why), local, target, last.done, last.total, { cause: e });
    }
    throw e;
  }
}

/** Above the direct limit: a one-byte probe next to the target (then removed) must be writable. */
async function checkWritable(client: FirecrestClient, local: string, target: FirecrestUri): Promise<void> {
  const size = (await stat(local)).size;
  const limit = await client.transfers.directLimit(target.system);
  if (size <= limit || limit <= 0) return;
  const dir = target.dirname.path;
  const probe = `.f7t-write-check-${randomBytes(4).toString('hex')}`;
  try {
    await client.uploadSmall(target.system, dir, probe, new Uint8Array([0x0a]));
  } catch (e) {
    if (isFinalFailure(e)) throw new PermissionDeniedError(vscode.l10n.t('Cannot write into {0} on {1}: nothing of {2} was sent. ({3})', dir, target.system, target.basename, messageOf(e)), { cause: e });
    return; // any other trouble: the upload itself will say
  }
  await client.remove(target.system, `${dir === '/' ? '' : dir}/${probe}`).catch(() => undefined);
}

/** Shows an interrupted upload with Resume (runs the resume command for it) and Show Log. */
export function offerResume(log: Log, e: InterruptedUploadError): void {
  log.error(`${e.message} (${e.local} -> ${e.target.toString()}; resumable)`);
  const resumeLabel = vscode.l10n.t('Resume');
  const showLog = vscode.l10n.t('Show Log');
  void vscode.window.showErrorMessage(e.message, resumeLabel, showLog).then((pick) => {
    if (pick === resumeLabel) void vscode.commands.executeCommand(RESUME_COMMAND, { local: e.local, remote: e.target.toString() });
    else if (pick === showLog) log.show();
  });
}
