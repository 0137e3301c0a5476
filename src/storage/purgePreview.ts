/**
 * FirecREST: Show What the Scratch Purge Would Delete: the files under the user's scratch folder
 * not read for the site's purge age (`firecrest.storage.purgeAfterDays`), largest first, from one
 * side-car job (`find`). Chosen files can be downloaded, or touched so that an age-based purge
 * passes them by, after a warning that this may break the site's policy.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import type { PurgeCandidate, PurgePreview } from '../core/facts/storage';
import { byteSize } from '../common/byteSize';
import { fields, text } from '../common/commandArgs';
import { pathInside } from '../common/localPath';
import type { ExtensionServices } from '../common/services';
import { pickProfile, pickSystem } from '../common/systemPickers';
import { storageSidecar } from './storageFacts';

export interface PurgeAnswer {
  preview: PurgePreview;
  /** What was done with the files chosen. */
  action?: 'download' | 'touch';
  chosen: string[];
}

/** Test and script seams: answers instead of the pickers and dialogs. */
export interface PurgeChoices {
  pick?(files: PurgeCandidate[]): Promise<PurgeCandidate[] | undefined>;
  action?(count: number): Promise<'download' | 'touch' | undefined>;
  downloadTo?(): Promise<string | undefined>;
}

const DAY = 86_400;

/** The user's folder on the scratch file system (`<scratch>/<user>` where it exists), else the file system itself. */
async function scratchFolder(client: FirecrestClient, system: string, fsPath: string): Promise<string> {
  const base = fsPath.replace(/\/+$/, '') || '/';
  try {
    const user = (await client.userInfo(system)).user.name;
    const mine = `${base === '/' ? '' : base}/${user}`;
    await client.stat(system, mine);
    return mine;
  } catch {
    return base;
  }
}

export async function showPurgePreview(services: ExtensionServices, arg: unknown, choices: PurgeChoices = {}): Promise<PurgeAnswer | undefined> {
  const given = fields(arg, { profile: text, system: text, path: text });
  const profile = await pickProfile(services, given.profile);
  if (!profile) return undefined;
  const system = await pickSystem(services, profile, given.system);
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const sys = (await services.connections.systems(profile)).find((s) => s.name === system);
  const fsPath = given.path ?? sys?.fileSystems.find((f) => f.dataType === 'scratch')?.path;
  if (!fsPath) throw new Error(vscode.l10n.t('{0} lists no scratch file system. Run this from a file system in the Systems view\'s Storage group.', system));
  const folder = await scratchFolder(client, system, fsPath);
  const days = Math.max(1, Math.floor(vscode.workspace.getConfiguration('firecrest.storage').get<number>('purgeAfterDays', 30)));
  const where = await storageSidecar(services, client, profile, system);
  const preview = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Looking for files under {0} not read for {1} days (a short job on the cluster)…', folder, days), cancellable: true },
    async (_p, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        const { purgePreview } = await import('../core/facts/storage.js');
        return await purgePreview(client, system, folder, days, { ...where, signal: ac.signal });
      } finally {
        sub.dispose();
      }
    },
  );
  if (preview.total === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Nothing under {0} has gone {1} days unread: a purge by that age would delete nothing.', folder, days));
    return { preview, chosen: [] };
  }
  const chosen = await (choices.pick ?? ((files) => pickFiles(preview, files)))(preview.files);
  if (!chosen?.length) return { preview, chosen: [] };
  const action = await (choices.action ?? askAction)(chosen.length);
  const paths = chosen.map((f) => `${folder}/${f.rel}`);
  if (action === 'touch') {
    const { touchToKeep } = await import('../core/facts/storage.js');
    const kept = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Marking {0} file(s) as read (a short job on the cluster)…', paths.length) }, () => touchToKeep(client, system, paths, where));
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} file(s) marked as read now: a purge by age passes them by for {1} days.', kept.touched, days));
  } else if (action === 'download') {
    const into = await (choices.downloadTo ?? pickDownloadFolder)();
    if (!into) return { preview, chosen: chosen.map((f) => f.rel) };
    await download(client, system, folder, chosen, into);
    void vscode.window.showInformationMessage(vscode.l10n.t('Downloaded {0} file(s) ({1}) into {2}.', chosen.length, byteSize(chosen.reduce((n, f) => n + f.bytes, 0)), into));
  }
  return { preview, action, chosen: chosen.map((f) => f.rel) };
}

async function pickFiles(preview: PurgePreview, files: PurgeCandidate[]): Promise<PurgeCandidate[] | undefined> {
  const now = Date.now() / 1000;
  const items = files.map((f) => ({
    label: f.rel.replace(/\n/g, '\\n'),
    description: byteSize(f.bytes),
    detail: vscode.l10n.t('last read {0} days ago', Math.floor((now - f.accessedAt) / DAY)),
    file: f,
  }));
  const shown = preview.total > files.length ? vscode.l10n.t(' (the largest {0} listed)', files.length) : '';
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('A purge of files not read for {0} days would delete {1} file(s), {2}, under {3}{4}', preview.days, preview.total, byteSize(preview.totalBytes), preview.folder, shown),
    placeHolder: vscode.l10n.t('Choose files to download or keep; Enter goes on'),
    matchOnDescription: true,
  });
  return picked?.map((p) => p.file);
}

async function askAction(count: number): Promise<'download' | 'touch' | undefined> {
  const download = vscode.l10n.t('Download…');
  const touch = vscode.l10n.t('Touch to Keep');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('What should happen to the {0} file(s)?', count),
    {
      modal: true,
      detail: vscode.l10n.t('Scratch is purged so that it stays free for running work. Touching files only so that the purge passes them by may be against the site\'s policy and can cost you the right to use scratch: download what you need, or move it to project storage.'),
    },
    download, touch,
  );
  return pick === download ? 'download' : pick === touch ? 'touch' : undefined;
}

async function pickDownloadFolder(): Promise<string | undefined> {
  const uri = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, openLabel: vscode.l10n.t('Download here'), title: vscode.l10n.t('Download the files into') });
  return uri?.[0]?.fsPath;
}

async function download(client: FirecrestClient, system: string, folder: string, files: PurgeCandidate[], into: string): Promise<void> {
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Downloading {0} file(s)', files.length), cancellable: true }, async (progress, token) => {
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort());
    try {
      for (const [i, f] of files.entries()) {
        progress.report({ message: `${i + 1}/${files.length} ${f.rel}`, increment: 100 / files.length });
        const local = pathInside(into, f.rel);
        await mkdir(dirname(local), { recursive: true });
        await client.transfers.downloadFile(system, `${folder}/${f.rel}`, local, { signal: ac.signal });
      }
    } finally {
      sub.dispose();
    }
  });
}
