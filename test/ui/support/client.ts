/**
 * A core client of the deployment under test, for a UI test's own set-up and checks (submitting a
 * job to show, writing a file to find). The extension in the workbench has its own connection;
 * this one only prepares and verifies what the screen should show.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient, type ClientOptions, type FirecrestClient } from '../../../src/core/index';
import { target } from '../../support/target';

/** A client of the target deployment (the local gateway, or a site's FIRECREST_* deployment). */
export function testClient(name: string, over: Partial<Omit<ClientOptions, 'profile'>> = {}): Promise<FirecrestClient> {
  const t = target();
  return createClient({
    profile: { name, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId },
    clientSecret: t.clientSecret,
    ...over,
  });
}

/**
 * The folder "Open Remote Folder…" starts in (src/commands/files/openRemoteFolder.ts): `/home/<user>`
 * when it is a folder, else `<default work dir>/<user>`, else the default work dir. A site's
 * deployment need not keep homes under /home.
 */
export async function remoteHome(client: FirecrestClient, system: string): Promise<string> {
  const user = (await client.userInfo(system)).user.name;
  const work = (await client.systems()).find((s) => s.name === system)?.fileSystems.find((f) => f.defaultWorkDir)?.path;
  const candidates = [`/home/${user}`, ...(work ? [`${work.replace(/\/+$/, '')}/${user}`, work] : [])];
  for (const path of candidates) {
    const st = await client.stat(system, path, { dereference: true }).catch(() => undefined);
    if (st && (st.mode & 0o170000) === 0o040000) return path;
  }
  return '/';
}

/** The sample project `npm start` puts into the home (`data/numbers.csv`, `analysis/sum.py`). */
const SAMPLE: Record<string, string> = JSON.parse(readFileSync(resolve(__dirname, '../../../scripts/lib/sample-project.json'), 'utf8')) as Record<string, string>;

/**
 * A folder of a UI test's own in the home folder (`<home>/<prefix>-<random>`), holding the sample
 * project and `extra` files: a site's deployment has none of the local gateway's sample files,
 * and other suites write into the same home. `remove` deletes the folder.
 */
export async function sampleFolder(system: string, prefix: string, extra: Record<string, string> = {}): Promise<{ home: string; dir: string; remove(): Promise<void> }> {
  const client = await testClient(prefix);
  const home = await remoteHome(client, system);
  const dir = `${home.replace(/\/$/, '')}/${prefix}-${randomUUID().slice(0, 8)}`;
  for (const [rel, text] of Object.entries({ ...SAMPLE, ...extra })) {
    const path = `${dir}/${rel}`;
    const parent = path.slice(0, path.lastIndexOf('/'));
    await client.mkdir(system, parent, { parents: true });
    await client.uploadSmall(system, parent, path.slice(parent.length + 1), new TextEncoder().encode(text));
  }
  return {
    home,
    dir,
    async remove() {
      await client.remove(system, dir).catch(() => undefined);
      await client.dispose();
    },
  };
}
