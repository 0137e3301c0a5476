/**
 * Open hello.sbatch: the walkthrough's first job. Opens `hello.sbatch` in the remote folder open
 * in the Explorer for the system (else the user's home), writing it there first when there is
 * none; an existing file is opened as it is, never overwritten.
 */
import { fields, text } from '../common/commandArgs';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import { NotFoundError } from '../core/errors';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import { pickProfile, pickSystem } from './pickers';
import { homeDirectory } from '../common/homeDirectory';

const NAME = 'hello.sbatch';
/** The example's text, shipped in the extension (npm start's demo home gets the same file). */
const EXAMPLE = ['media', 'walkthrough', NAME];

/**
 * `{profile?, system?}` skips the picks; `folder` (an absolute remote path) names where the script
 * goes instead of the open folder or the home. Returns the opened URI.
 */
export async function openExampleScript(services: ExtensionServices, arg?: unknown): Promise<string | undefined> {
  const given = fields(arg, { profile: text, system: text, folder: text });
  if (given.folder !== undefined && !given.folder.startsWith('/')) throw new Error(vscode.l10n.t('The folder for the example script must be an absolute remote path, not {0}.', given.folder));
  const profile = await pickProfile(services, given.profile);
  if (!profile) return undefined;
  const system = await pickSystem(services, profile, given.system);
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const multi = services.connections.multiProfile;
  const folder = (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === FIRECREST_SCHEME)
    .map((f) => FirecrestUri.parse(f.uri))
    .find((u) => u.system === system && (!multi || u.profile === profile));
  const dir = given.folder ?? folder?.path ?? (await homeDirectory(services, client, profile, system));
  const path = `${dir.replace(/\/+$/, '')}/${NAME}`;
  try {
    await client.stat(system, path);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    await client.uploadSmall(system, dir, NAME, await vscode.workspace.fs.readFile(vscode.Uri.joinPath(services.context.extensionUri, ...EXAMPLE)));
    services.log.withTag('jobs').info(`wrote the example script ${path} on ${system}`);
  }
  const uri = vscode.Uri.parse(FirecrestUri.from({ system, path, profile: multi ? profile : undefined }).toString());
  await vscode.window.showTextDocument(uri, { preview: false });
  return uri.toString();
}
