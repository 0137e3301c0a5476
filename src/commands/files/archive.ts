/** Compress… and Extract… (server-side tar, waited for; cancellable; listed in the Transfer Centre). */
import * as vscode from 'vscode';
import type { CompressionType } from '../../core/model';
import type { ConnectionService, Log } from '../../common/services';
import type { TransferEvents } from '../../common/transferEvents';
import { withTransferProgress } from '../../common/transferProgress';
import { registerCommand } from '../register';
import { resolveResource, toVscodeUri, type RemoteFilesHooks } from './resource';

const KINDS: { compression: CompressionType; label: string; ext: string; also: string[] }[] = [
  { compression: 'gzip', label: 'gzip', ext: '.tar.gz', also: ['.tgz'] },
  { compression: 'bzip2', label: 'bzip2', ext: '.tar.bz2', also: ['.tbz2', '.tbz'] },
  { compression: 'xz', label: 'xz', ext: '.tar.xz', also: ['.txz'] },
  { compression: 'none', label: 'tar', ext: '.tar', also: [] },
];

/** The compression an archive name suggests, if any. */
export function compressionOf(name: string): CompressionType | undefined {
  const n = name.toLowerCase();
  return KINDS.find((k) => [k.ext, ...k.also].some((e) => n.endsWith(e)))?.compression;
}

async function pickCompression(title: string, preferred?: CompressionType): Promise<(typeof KINDS)[number] | undefined> {
  const items = KINDS.map((k) => ({ label: k.compression === 'none' ? vscode.l10n.t('none (plain tar)') : k.label, description: k.ext, choice: k, picked: k.compression === preferred }));
  if (preferred) items.sort((a, b) => Number(b.picked) - Number(a.picked));
  return (await vscode.window.showQuickPick(items, { title }))?.choice;
}

export function registerArchiveCommands(connections: ConnectionService, log: Log, hooks: RemoteFilesHooks, events?: TransferEvents): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.files.compress', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File or folder to compress'));
      if (!r) return;
      const kind = await pickCompression(vscode.l10n.t('Compress {0} with', r.ref.basename));
      if (!kind) return;
      const target = await vscode.window.showInputBox({
        title: vscode.l10n.t('Archive to create'),
        value: `${r.ref.path}${kind.ext}`,
        validateInput: (v) => (v.trim().startsWith('/') ? undefined : vscode.l10n.t('An absolute path')),
      });
      if (target === undefined) return;
      const pattern = await vscode.window.showInputBox({
        title: vscode.l10n.t('Only files matching (optional)'),
        prompt: vscode.l10n.t('A find -regex pattern, e.g. .*\\.txt; empty for everything. The server always uses gzip with a pattern.'),
      });
      if (pattern === undefined) return;
      const targetRef = r.ref.with({ path: target.trim() });
      // Retry (from the Transfer Centre) runs the same compression again.
      const run = async (): Promise<void> => {
        await withTransferProgress(events, { kind: 'compress', remote: r.ref.toString(), destination: targetRef.toString(), title: vscode.l10n.t('Compressing {0}…', r.ref.basename), retry: run }, ({ signal, onProgress }) =>
          r.client.compress(r.ref.system, r.ref.path, targetRef.path, { compression: kind.compression, matchPattern: pattern.trim() || undefined, signal, onProgress }));
        hooks.refresh(toVscodeUri(targetRef), true);
      };
      await run();
      void vscode.window.showInformationMessage(vscode.l10n.t('Created {0}', targetRef.path));
    }),
    registerCommand('firecrest.files.extract', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('Archive to extract'));
      if (!r) return;
      const guessed = compressionOf(r.ref.basename);
      const kind = guessed ? KINDS.find((k) => k.compression === guessed) : await pickCompression(vscode.l10n.t('Compression of {0}', r.ref.basename));
      if (!kind) return;
      const dir = await vscode.window.showInputBox({
        title: vscode.l10n.t('Extract {0} into', r.ref.basename),
        value: r.ref.dirname.path,
        validateInput: (v) => (v.trim().startsWith('/') ? undefined : vscode.l10n.t('An absolute path')),
      });
      if (dir === undefined) return;
      const dirRef = r.ref.with({ path: dir.trim() });
      // "Extract into <folder>" means that folder: one that does not exist yet is made (tar would
      // only say "Cannot open: No such file or directory").
      await r.client.mkdir(dirRef.system, dirRef.path, { parents: true });
      const run = async (): Promise<void> => {
        await withTransferProgress(events, { kind: 'extract', remote: r.ref.toString(), destination: dirRef.toString(), title: vscode.l10n.t('Extracting {0}…', r.ref.basename), retry: run }, ({ signal, onProgress }) =>
          r.client.extract(r.ref.system, r.ref.path, dirRef.path, { compression: kind.compression, signal, onProgress }));
        hooks.refresh(toVscodeUri(dirRef));
      };
      await run();
      void vscode.window.showInformationMessage(vscode.l10n.t('Extracted into {0}', dirRef.path));
    }),
  );
}
