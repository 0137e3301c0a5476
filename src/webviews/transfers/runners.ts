/**
 * Retry and Resume of finished uploads and downloads, also for records of earlier sessions: they
 * run the file commands again (by id: this folder may not import src/commands) with the paths of
 * the record, so the same notification, events and resume store are used as the first time.
 */
import * as vscode from 'vscode';
import { FirecrestUri } from '../../core/uri';
import type { TransferEvents, TransferRecord } from '../../common/transferEvents';
import type { InterruptedUpload } from '../../common/uploadResumeStore';

function remoteOf(r: TransferRecord): FirecrestUri | undefined {
  try {
    return FirecrestUri.parse(r.remote);
  } catch {
    return undefined;
  }
}

const toUri = (f: FirecrestUri): vscode.Uri => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });

/** `interrupted`: the uploads whose parts are kept (UploadResumeStore.list). */
export function registerTransferRunners(events: TransferEvents, interrupted?: () => InterruptedUpload[]): vscode.Disposable {
  const resumable = (r: TransferRecord): boolean => {
    const remote = remoteOf(r);
    return !!remote && !!r.local && !!interrupted?.().some((u) => u.localPath === r.local && u.system === remote.system && u.remotePath === remote.path && (u.profile ?? '') === (remote.profile ?? ''));
  };
  return vscode.Disposable.from(
    events.setRunner('upload', {
      // Editor saves have no local file: their bytes are gone, the save itself is retried by saving again.
      canRetry: (r) => !!r.local && !!remoteOf(r),
      canResume: resumable,
      rerun: (r, resume) => {
        const remote = remoteOf(r)!;
        return resume
          ? Promise.resolve(vscode.commands.executeCommand('firecrest.files.resumeUpload', { local: r.local, remote: remote.toString() }))
          : Promise.resolve(vscode.commands.executeCommand('firecrest.files.upload', toUri(remote.dirname), { localPaths: [r.local], replace: true }));
      },
    }),
    events.setRunner('download', {
      canRetry: (r) => !!r.local && !!remoteOf(r),
      rerun: (r) => Promise.resolve(vscode.commands.executeCommand('firecrest.files.download', toUri(remoteOf(r)!), { localPath: r.local })),
    }),
  );
}
