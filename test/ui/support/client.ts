/**
 * A core client of the deployment under test, for a UI test's own set-up and checks (submitting a
 * job to show, writing a file to find). The extension in the workbench has its own connection;
 * this one only prepares and verifies what the screen should show.
 */
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

/** The test user's home folder on `system`, as the Explorer shows it. */
export async function remoteHome(client: FirecrestClient, system: string): Promise<string> {
  return `/home/${(await client.userInfo(system)).user.name}`;
}
