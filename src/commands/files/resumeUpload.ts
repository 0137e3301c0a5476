/**
 * FirecREST: Resume Interrupted Upload…: picks an interrupted staged upload (or takes
 * `{ local, remote }` from the Resume action of its failure message) and continues it: only the
 * parts the staging area does not have yet are sent, then the usual completion and SHA-256 check.
 */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import { FirecrestUri } from '../../core/uri';
import type { ConnectionService } from '../../common/services';
import { registerCommand } from '../register';
import { toVscodeUri, type RemoteFilesHooks } from './resource';
import { InterruptedUploadError, offerResume, RESUME_COMMAND, uploadOne, type UploadDeps } from './uploadOne';

export interface ResumeUploadDeps extends UploadDeps {
  connections: ConnectionService;
  hooks: RemoteFilesHooks;
}

/** What a resumed upload did (the command's result). */
export interface ResumeSummary {
  bytes: number;
  /** Parts an earlier attempt had sent (not sent again). */
  resumedParts: number;
  verified: boolean;
  /** Set when the earlier staged upload could not be reused (its job ended, its URLs expired) and the file was sent afresh: why. */
  restarted?: string;
}

function targetOf(arg: unknown): { local: string; remote: string } | undefined {
  const { local, remote } = fields(arg, { local: text, remote: text });
  return local !== undefined && remote !== undefined ? { local, remote } : undefined;
}

async function pick(deps: ResumeUploadDeps): Promise<{ local: string; remote: string } | undefined> {
  const entries = deps.resume?.list() ?? [];
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There is no interrupted upload to resume.'));
    return undefined;
  }
  const items = entries.map((e) => {
    const remote = FirecrestUri.from({ system: e.system, path: e.remotePath, profile: e.profile }).toString();
    const expires = e.expiresAt ? vscode.l10n.t(', resumable until {0}', new Date(e.expiresAt).toLocaleString()) : '';
    return { label: e.remotePath.slice(e.remotePath.lastIndexOf('/') + 1), description: vscode.l10n.t('{0} of {1} parts sent{2}', e.partsDone, e.partsTotal, expires), detail: `${e.localPath} → ${remote}`, local: e.localPath, remote };
  });
  const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Resume an interrupted upload'), matchOnDetail: true });
  return chosen && { local: chosen.local, remote: chosen.remote };
}

export function registerResumeUpload(deps: ResumeUploadDeps): vscode.Disposable {
  return registerCommand(RESUME_COMMAND, deps.log, async (arg): Promise<ResumeSummary | undefined> => {
    const which = targetOf(arg) ?? (await pick(deps));
    if (!which) return undefined;
    const target = FirecrestUri.parse(which.remote);
    if (!(await deps.resume?.find(target.profile, which.local, target.system, target.path))) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The upload of {0} to {1} cannot be resumed any more (finished, cancelled or expired): upload it again.', which.local, target.path));
      return undefined;
    }
    const client = await deps.connections.client(target.profile);
    try {
      // A dead transfer job (or expired URLs) makes the client start afresh: uploadOne then counts no kept part.
      const { result, resumedParts } = await uploadOne(deps, client, which.local, target);
      const { restarted } = result;
      const how = restarted === undefined ? `${resumedParts} part(s) kept` : vscode.l10n.t('sent afresh because the interrupted upload could not be reused ({0})', restarted);
      deps.log.info(`Resumed upload of ${which.local} to ${target.toString()}: ${how}, ${result.bytes} bytes, SHA-256 ${result.verified ? 'verified' : `not verified: ${result.note ?? ''}`}`);
      deps.hooks.refresh(toVscodeUri(target), true);
      const done = restarted === undefined
        ? vscode.l10n.t('Uploaded {0} to {1}', which.local, target.path)
        : vscode.l10n.t('Uploaded {0} to {1} (sent again from the start: {2})', which.local, target.path, restarted);
      void vscode.window.showInformationMessage(done);
      return { bytes: result.bytes, resumedParts, verified: result.verified, restarted };
    } catch (e) {
      if (!(e instanceof InterruptedUploadError)) throw e;
      offerResume(deps.log, e);
      return undefined;
    }
  });
}
