/**
 * Which remote file a file command acts on: the Explorer's argument (a `firecrest:` URI), else an
 * input prefilled from the active editor or the first remote workspace folder. Commands work the
 * same from the context menu and from the palette.
 */
import { fields, uri } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../core/client';
import { FIRECREST_SCHEME, FirecrestUri } from '../../core/uri';
import type { ConnectionService } from '../../common/services';
import { toVscodeUri } from '../../common/remoteUris';

export { toVscodeUri };

/** What the composition root passes in from the file system (this folder may not import src/fs). */
export interface RemoteFilesHooks {
  /** Forget cached listings around `uri` and tell VS Code it changed (or was created). */
  refresh(uri: vscode.Uri, created?: boolean): void;
}

export interface RemoteResource {
  uri: vscode.Uri;
  ref: FirecrestUri;
  client: FirecrestClient;
}


function uriOf(arg: unknown): vscode.Uri | undefined {
  // The argument itself (Explorer, editor title), or a tree item's resourceUri, or `{uri}`.
  const o = fields(arg, { resourceUri: uri, uri });
  const given = uri(arg) ?? o.resourceUri ?? o.uri;
  return given?.scheme === FIRECREST_SCHEME ? given : undefined;
}

function contextUri(): vscode.Uri | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === FIRECREST_SCHEME) return active;
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === FIRECREST_SCHEME)?.uri;
}

/** Undefined when the user dismissed the input. */
export async function resolveResource(connections: ConnectionService, arg: unknown, prompt: string): Promise<RemoteResource | undefined> {
  let uri = uriOf(arg);
  if (!uri) {
    const near = contextUri();
    const value = await vscode.window.showInputBox({
      prompt,
      value: near ? near.toString(true) : `${FIRECREST_SCHEME}://<system>/`,
      placeHolder: vscode.l10n.t('{0}://[profile@]system/absolute/path', FIRECREST_SCHEME),
      validateInput: (v) => {
        try {
          FirecrestUri.parse(v.trim());
          return undefined;
        } catch {
          return vscode.l10n.t('A {0}:// URI, e.g. {0}://daint/home/alice/file.txt', FIRECREST_SCHEME);
        }
      },
    });
    if (value === undefined) return undefined;
    uri = toVscodeUri(FirecrestUri.parse(value.trim()));
  }
  const ref = FirecrestUri.parse(uri);
  return { uri, ref, client: await connections.client(ref.profile) };
}

/** Runs `work` under a cancellable progress notification; cancelling aborts the request. */
export function withProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, token) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    return work(abort.signal).finally(() => {
      sub.dispose();
    });
  });
}
