/** The remote-file commands (Explorer context menu and palette) and Open Remote Folder. */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import { registerArchiveCommands } from './archive';
import { registerAttributeCommands } from './attributes';
import { registerInfoCommands } from './info';
import { registerOpenRemoteFolder } from './openRemoteFolder';
import type { RemoteFilesHooks } from './resource';
import { registerTransferCommands } from './transfer';

export type { RemoteFilesHooks } from './resource';

export function registerFileCommands(services: ExtensionServices, hooks: RemoteFilesHooks): vscode.Disposable {
  const { connections } = services;
  const log = services.log.withTag('files');
  return vscode.Disposable.from(
    registerOpenRemoteFolder(connections, log),
    registerAttributeCommands(connections, log, hooks),
    registerInfoCommands(connections, log),
    registerArchiveCommands(connections, log, hooks),
    registerTransferCommands(connections, log),
  );
}
