/**
 * The ONE mapping from remote failures to `vscode.FileSystemError`. VS Code (and every extension
 * using `workspace.fs`) branches on these codes: FileNotFound makes it create files instead of
 * failing, NoPermissions makes it offer "retry as ...", the rest is Unavailable.
 */
import * as vscode from 'vscode';
import { isProbed } from './probes';
import { messageOf, NotFoundError, PermissionDeniedError } from '../core/errors';
import { FsError } from './fsError';
import { cannotReach, isUnreachable, siteOfError } from '../common/reachability';

export function toFileSystemError(e: unknown, uri: vscode.Uri): vscode.FileSystemError {
  if (e instanceof vscode.FileSystemError) return e;
  const text = `${messageOf(e)} (${uri.toString(true)})`;
  if (e instanceof FsError) {
    switch (e.code) {
      case 'FileNotFound':
        return vscode.FileSystemError.FileNotFound(text);
      case 'FileExists':
        return vscode.FileSystemError.FileExists(text);
      case 'FileNotADirectory':
        return vscode.FileSystemError.FileNotADirectory(text);
      case 'FileIsADirectory':
        return vscode.FileSystemError.FileIsADirectory(text);
      case 'NoPermissions':
        return vscode.FileSystemError.NoPermissions(text);
      case 'NotEmpty':
        // No dedicated code exists; the message carries the reason, as ENOTEMPTY does on disk.
        return new vscode.FileSystemError(text);
      case 'TooLarge':
      case 'Unavailable':
        return vscode.FileSystemError.Unavailable(text);
    }
  }
  if (isUnreachable(e)) {
    // In words: the socket's error code goes to the log (the provider logs the raw text).
    const site = siteOfError(e) ?? vscode.l10n.t('the cluster');
    return vscode.FileSystemError.Unavailable(vscode.l10n.t('{0}: it does not answer, and is tried again by itself ({1})', cannotReach(site), uri.toString(true)));
  }
  if (e instanceof NotFoundError) return vscode.FileSystemError.FileNotFound(text);
  if (e instanceof PermissionDeniedError) return vscode.FileSystemError.NoPermissions(text);
  return vscode.FileSystemError.Unavailable(text);
}

/** True when a FileNotFound for this URI is an expected probe (logged at debug, not as an error). */
export function isProbedPath(uri: vscode.Uri): boolean {
  return isProbed(uri.path);
}
