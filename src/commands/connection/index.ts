/** The connection commands: add, sign in/out, remove, retry, show log. */
import * as vscode from 'vscode';
import type { Connections } from '../../connections/connections';
import type { Log } from '../../common/services';
import { registerCommand } from '../register';
import { registerAddConnection } from './addConnection';
import { registerRemoveConnection } from './removeConnection';
import { registerRetryConnection } from './retryConnection';
import { registerSignInOut } from './signInOut';

export function registerConnectionCommands(connections: Connections, log: Log): vscode.Disposable {
  return vscode.Disposable.from(
    registerAddConnection(connections, log),
    registerSignInOut(connections, log),
    registerRemoveConnection(connections, log),
    registerRetryConnection(connections, log),
    registerCommand('firecrest.showLog', log, () => log.show()),
  );
}
