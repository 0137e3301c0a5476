/**
 * The user's home on a system, as far as the API tells: `<default work dir filesystem>/<user>`
 * when that exists, else the filesystem itself. Used where a feature needs a folder of the user's
 * own (Submit Job's default working directory, the example script, Search on Cluster's files).
 */
import type { FirecrestApi } from '../core/api';
import type { ExtensionServices } from './services';

export async function homeDirectory(services: ExtensionServices, client: FirecrestApi, profile: string, system: string): Promise<string> {
  const sys = (await services.connections.systems(profile)).find((s) => s.name === system);
  const base = sys?.fileSystems.find((f) => f.defaultWorkDir)?.path ?? sys?.fileSystems[0]?.path ?? '/';
  try {
    const user = (await client.userInfo(system)).user.name;
    const home = `${base.replace(/\/+$/, '')}/${user}`;
    await client.stat(system, home);
    return home;
  } catch {
    return base;
  }
}
