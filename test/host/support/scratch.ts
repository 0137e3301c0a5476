/**
 * The set-up most host suites share: a connection of their own to the suite's target, added
 * through the Add Connection code path, and a fresh folder in the user's home to work in.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestExtensionApi } from '../../../src/common/api';
import type { FirecrestClient } from '../../../src/core/client';
import { FirecrestUri } from '../../../src/core/uri';
import { target } from '../../support/target';
import { extensionApi } from './extension';

/** The `vscode.Uri` of a `firecrest:` location. */
export const vscodeUri = (f: FirecrestUri): vscode.Uri => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });

export interface Scratch {
  api: FirecrestExtensionApi;
  client: FirecrestClient;
  /** `<home>/<prefix>-<random>`, created. */
  base: FirecrestUri;
}

/** Adds connection `profile` to the target, signs in, and creates `<home>/<prefix>-<random>`. */
export async function connectWithScratchFolder(profile: string, prefix: string): Promise<Scratch> {
  const t = target();
  const api = await extensionApi();
  await vscode.commands.executeCommand('firecrest.addConnection', {
    name: profile, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
  });
  const client = await api.connections.client(profile);
  const user = (await client.userInfo(t.system)).user.name;
  const base = FirecrestUri.from({ system: t.system, path: `/home/${user}/${prefix}-${randomBytes(4).toString('hex')}`, profile });
  await vscode.workspace.fs.createDirectory(vscodeUri(base));
  return { api, client, base };
}
