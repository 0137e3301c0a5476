/** `firecrest://` references as VS Code URIs: the one conversion every feature uses. */
import * as vscode from 'vscode';
import { FIRECREST_SCHEME, type FirecrestUri } from '../core/uri';

export function toVscodeUri(ref: FirecrestUri): vscode.Uri {
  return vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: ref.authority, path: ref.path });
}
