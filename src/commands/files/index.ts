/** The remote-file commands (Explorer context menu and palette) and Open Remote Folder. */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import type { TransferEvents } from '../../common/transferEvents';
import type { UploadResumeStore } from '../../common/uploadResumeStore';
import { registerArchiveCommands } from './archive';
import { registerAttributeCommands } from './attributes';
import { registerInfoCommands } from './info';
import { registerOpenRemoteFolder } from './openRemoteFolder';
import type { RemoteFilesHooks } from './resource';
import { registerTransferCommands } from './transfer';

export type { RemoteFilesHooks } from './resource';

/** `transfers`: where large transfers are published and interrupted uploads are remembered. */
export function registerFileCommands(services: ExtensionServices, hooks: RemoteFilesHooks, transfers: { events?: TransferEvents; resume?: UploadResumeStore } = {}): vscode.Disposable {
  const { connections } = services;
  const log = services.log.withTag('files');
  return vscode.Disposable.from(
    registerOpenRemoteFolder(connections, log),
    registerAttributeCommands(connections, log, hooks),
    registerInfoCommands(connections, log),
    registerArchiveCommands(connections, log, hooks, transfers.events),
    registerTransferCommands({ connections, log, hooks, ...transfers }),
  );
}
