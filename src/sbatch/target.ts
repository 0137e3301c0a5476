/**
 * Which system a batch script is checked against, in this order: a `firecrest://` file's own
 * system; the (resource-scoped) setting `firecrest.sbatch.system` as `profile/system` or `system`;
 * the connection's default system; the only system of the connection.
 */
import * as vscode from 'vscode';
import type { ConnectionService } from '../common/services';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import type { SbatchTarget } from './liveData';

export const SYSTEM_SETTING = 'sbatch.system';

/** The target of a document, or undefined when no connection or system can be named. */
export async function resolveTarget(connections: ConnectionService, uri: vscode.Uri): Promise<SbatchTarget | undefined> {
  const fallbackProfile = connections.defaultProfileName();
  if (uri.scheme === FIRECREST_SCHEME) {
    const remote = FirecrestUri.parse(uri);
    const profile = remote.profile ?? fallbackProfile;
    return profile ? { profile, system: remote.system } : undefined;
  }
  const setting = vscode.workspace.getConfiguration('firecrest', uri).get<string>(SYSTEM_SETTING)?.trim();
  if (setting) {
    const slash = setting.indexOf('/');
    const profile = slash >= 0 ? setting.slice(0, slash) : fallbackProfile;
    const system = slash >= 0 ? setting.slice(slash + 1) : setting;
    return profile && system ? { profile, system } : undefined;
  }
  if (!fallbackProfile) return undefined;
  const info = connections.connections().find((c) => c.profile.name === fallbackProfile);
  if (info?.profile.defaultSystem) return { profile: fallbackProfile, system: info.profile.defaultSystem };
  if (!info || info.state === 'signed-out') return undefined;
  // The connection caches its systems; a single one is an unambiguous target.
  const systems = await connections.systems(fallbackProfile).catch(() => []);
  return systems.length === 1 ? { profile: fallbackProfile, system: systems[0].name } : undefined;
}
