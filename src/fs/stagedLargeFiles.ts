/**
 * `LargeFileTransfers` over the client's staged transfers: a file above the direct limit opens by
 * a staged download into a private temporary file (VS Code wants the bytes in memory anyway), and
 * a save uploads the provider's temporary file staged (the provider then moves it over the target).
 * Each shows a cancellable progress notification and is published on TransferEvents.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestUri } from '../core/uri';
import type { ConnectionService } from '../common/services';
import type { TransferEvents } from '../common/transferEvents';
import { withTransferProgress } from '../common/transferProgress';
import type { LargeFileTransfers } from './remoteFileSystem';

const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);

export function stagedLargeFiles(connections: ConnectionService, events?: TransferEvents): LargeFileTransfers {
  return {
    read: (uri: FirecrestUri, size: number) =>
      withTransferProgress(events, { direction: 'download', remote: uri.toString(), title: vscode.l10n.t('Opening {0} ({1} MiB, staged)', uri.basename, mib(size)) }, async ({ signal, onProgress }) => {
        const client = await connections.client(uri.profile);
        // A folder of our own (mode 700): other local users cannot read the file while it is there.
        const dir = await mkdtemp(join(tmpdir(), 'firecrest-'));
        try {
          const file = join(dir, randomBytes(6).toString('hex'));
          await client.transfers.download(uri.system, uri.path, file, { signal, onProgress });
          return new Uint8Array(await readFile(file));
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }),
    upload: (file: FirecrestUri, data: Uint8Array, target?: FirecrestUri) =>
      // The transfer is listed under the file being saved: the temporary name it travels under is
      // moved over it afterwards, so Open Destination and the list show what the user saved.
      withTransferProgress(events, { direction: 'upload', remote: (target ?? file).toString(), title: vscode.l10n.t('Saving {0} MiB (staged)', mib(data.byteLength)) }, async ({ signal, onProgress }) => {
        const client = await connections.client(file.profile);
        await client.transfers.uploadBytes(file.system, data, file.path, { signal, onProgress });
      }),
  };
}
