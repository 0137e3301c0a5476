/**
 * Download to Local… and Upload from Local…, for files and folders of any size: folders are walked
 * and each file goes through `client.transfers` (direct up to the system's limit, staged above it,
 * SHA-256 verified) under its own cancellable progress notification, published on TransferEvents.
 * An interrupted staged upload is kept (UploadResumeStore) and offered for Resume. A second
 * argument (`TransferCommandOptions`) skips the dialogs (automation, tests); both commands resolve
 * what they did.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import * as os from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { byteSize } from '../../common/byteSize';
import type { FirecrestClient } from '../../core/client';
import { FirecrestUri } from '../../core/uri';
import { pathInside } from '../../common/localPath';
import type { ConnectionService, Log } from '../../common/services';
import type { TransferEvents } from '../../common/transferEvents';
import { withTransferProgress } from '../../common/transferProgress';
import type { UploadResumeStore } from '../../common/uploadResumeStore';
import { registerCommand } from '../register';
import { registerResumeUpload } from './resumeUpload';
import { resolveResource, toVscodeUri, type RemoteFilesHooks } from './resource';
import { InterruptedUploadError, offerResume, uploadOne } from './uploadOne';

export interface TransferCommandDeps {
  connections: ConnectionService;
  log: Log;
  hooks: RemoteFilesHooks;
  events?: TransferEvents;
  resume?: UploadResumeStore;
}

/** The commands' second argument: what the dialogs would ask. */
export interface TransferCommandOptions {
  /** Upload: local files and folders to upload (instead of the open dialog). */
  localPaths?: string[];
  /** Upload: replace remote files of the same name without asking. */
  replace?: boolean;
  /** Download: the local file to write (a file) or the folder to download into (a folder). */
  localPath?: string;
}

function optionsOf(arg: unknown): TransferCommandOptions | undefined {
  return arg !== null && typeof arg === 'object' && !Array.isArray(arg) ? arg : undefined;
}

/** What a transfer command did. */
export interface TransferSummary {
  files: number;
  bytes: number;
  /** An upload that stopped with parts kept (offered for Resume). */
  interrupted?: { local: string; remote: string; partsDone: number; partsTotal: number };
}

/** Local files under `root` (recursively), with their path relative to it. */
async function localTree(root: string, rel = ''): Promise<{ path: string; rel: string }[]> {
  const out: { path: string; rel: string }[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    // One at a time, not spread: a folder may hold more files than a call takes arguments.
    if (e.isDirectory()) for (const f of await localTree(root, r)) out.push(f);
    else if (e.isFile()) out.push({ path: join(root, r), rel: r });
  }
  return out;
}

/** Regular files below a remote folder (links are not followed), relative to it. */
async function remoteTree(client: FirecrestClient, dir: FirecrestUri, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await client.list(dir.system, rel ? `${dir.path}/${rel}` : dir.path, { showHidden: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.kind === 'directory') for (const f of await remoteTree(client, dir, r)) out.push(f);
    else if (e.kind === 'file') out.push(r);
  }
  return out;
}

export function registerTransferCommands(deps: TransferCommandDeps): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.files.download', deps.log, (arg, second) => downloadToLocal(deps, arg, second)),
    registerCommand('firecrest.files.upload', deps.log, (arg, second) => uploadFromLocal(deps, arg, second)),
    registerResumeUpload(deps),
  );
}

/** Download to Local…: a remote file (to a file) or folder (into a folder), each file verified. */
async function downloadToLocal(deps: TransferCommandDeps, arg: unknown, second: unknown): Promise<TransferSummary | undefined> {
  const { connections, log } = deps;
  const opts = optionsOf(second);
  const r = await resolveResource(connections, arg, vscode.l10n.t('Remote file or folder to download'));
  if (!r) return undefined;
  const isDir = ((await vscode.workspace.fs.stat(r.uri)).type & vscode.FileType.Directory) !== 0;
  const local = opts?.localPath !== undefined ? vscode.Uri.file(opts.localPath)
    : isDir
      ? (await vscode.window.showOpenDialog({ title: vscode.l10n.t('Download {0} into', r.ref.basename), canSelectFiles: false, canSelectFolders: true, openLabel: vscode.l10n.t('Download here'), defaultUri: vscode.Uri.file(os.homedir()) }))?.[0]
      : await vscode.window.showSaveDialog({ title: vscode.l10n.t('Download {0} to', r.ref.basename), defaultUri: vscode.Uri.file(`${os.homedir()}/${r.ref.basename}`) });
  if (!local) return undefined;
  const files: [FirecrestUri, string][] = [];
  if (isDir) {
    const root = join(local.fsPath, r.ref.basename);
    for (const rel of await remoteTree(r.client, r.ref)) files.push([r.ref.joinPath(...rel.split('/')), pathInside(root, rel)]);
  } else {
    files.push([r.ref, local.fsPath]);
  }
  let total = 0;
  for (const [remote, path] of files) {
    await mkdir(join(path, '..'), { recursive: true });
    const res = await withTransferProgress(deps.events, { direction: 'download', remote: remote.toString(), local: path, title: vscode.l10n.t('Downloading {0}', remote.basename) }, ({ signal, onProgress }) =>
      r.client.transfers.downloadFile(remote.system, remote.path, path, { signal, onProgress }));
    total += res.bytes;
    log.info(`Downloaded ${remote.toString()} (${res.route}, ${res.bytes} bytes, SHA-256 ${res.verified ? 'verified' : `not verified: ${res.note ?? ''}`})`);
  }
  void vscode.window.showInformationMessage((files.length === 1 ? vscode.l10n.t('Downloaded 1 file ({0}) to {1}', byteSize(total), local.fsPath) : vscode.l10n.t('Downloaded {0} files ({1}) to {2}', files.length, byteSize(total), local.fsPath)));
  return { files: files.length, bytes: total };
}

/** Upload from Local…: local files and folders into a remote folder; an interrupted large file can be resumed. */
async function uploadFromLocal(deps: TransferCommandDeps, arg: unknown, second: unknown): Promise<TransferSummary | undefined> {
  const { connections, log, hooks } = deps;
  const opts = optionsOf(second);
  const r = await resolveResource(connections, arg, vscode.l10n.t('Remote folder to upload into'));
  if (!r) return undefined;
  const isDir = ((await vscode.workspace.fs.stat(r.uri)).type & vscode.FileType.Directory) !== 0;
  const folder: FirecrestUri = isDir ? r.ref : r.ref.dirname;
  const picked = opts?.localPaths ? opts.localPaths.map((p) => vscode.Uri.file(p)) : await vscode.window.showOpenDialog({
    title: vscode.l10n.t('Upload to {0}', folder.path),
    canSelectMany: true,
    canSelectFiles: true,
    canSelectFolders: true,
    openLabel: vscode.l10n.t('Upload'),
  });
  if (!picked || picked.length === 0) return undefined;
  const jobs: [string, FirecrestUri][] = [];
  for (const local of picked) {
    const name = local.path.slice(local.path.lastIndexOf('/') + 1);
    const target = folder.joinPath(name);
    if (!opts?.replace && await vscode.workspace.fs.stat(toVscodeUri(target)).then(() => true, () => false)) {
      const replace = vscode.l10n.t('Replace');
      const answer = await vscode.window.showWarningMessage(vscode.l10n.t('{0} already exists in {1}. Replace it?', name, folder.path), { modal: true }, replace);
      if (answer !== replace) continue;
    }
    if ((await stat(local.fsPath)).isDirectory()) {
      for (const f of await localTree(local.fsPath)) jobs.push([f.path, target.joinPath(...f.rel.split('/'))]);
    } else {
      jobs.push([local.fsPath, target]);
    }
  }
  let total = 0;
  let done = 0;
  const made = new Set<string>();
  for (const [local, target] of jobs) {
    if (!made.has(target.dirname.path)) {
      await r.client.mkdir(target.system, target.dirname.path, { parents: true });
      made.add(target.dirname.path);
    }
    let res;
    try {
      res = (await uploadOne(deps, r.client, local, target)).result;
    } catch (e) {
      if (!(e instanceof InterruptedUploadError)) throw e;
      // The files after it are not sent: the user resumes this one, then uploads again.
      hooks.refresh(toVscodeUri(folder));
      offerResume(log, e);
      return { files: done, bytes: total, interrupted: { local, remote: target.toString(), partsDone: e.partsDone, partsTotal: e.partsTotal } };
    }
    total += res.bytes;
    done++;
    log.info(`Uploaded ${local} to ${target.toString()} (${res.route}, ${res.bytes} bytes, SHA-256 ${res.verified ? 'verified' : `not verified: ${res.note ?? ''}`})`);
    hooks.refresh(toVscodeUri(target), true);
  }
  hooks.refresh(toVscodeUri(folder));
  if (jobs.length > 0) void vscode.window.showInformationMessage((jobs.length === 1 ? vscode.l10n.t('Uploaded 1 file ({0}) to {1}', byteSize(total), folder.path) : vscode.l10n.t('Uploaded {0} files ({1}) to {2}', jobs.length, byteSize(total), folder.path)));
  return { files: done, bytes: total };
}
