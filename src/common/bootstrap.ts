/**
 * The one-shot bootstrap of `npm start` (and the UI tests): a JSON file named by the
 * FIRECREST_BOOTSTRAP environment variable, `{ "profiles": [{ ...profile, "clientSecret": "..." }] }`,
 * is imported on activation (secrets into SecretStorage, profiles into the user settings) and then
 * deleted, so a secret never sits in settings.json and only briefly on disk. `npm start` adds
 * `"open": "<firecrest:// URI>"`: the file to show first, with the getting-started walkthrough.
 */
import { readFile, unlink } from 'node:fs/promises';
import { normalizeProfile } from './profiles';
import type { ConnectionProfile } from '../core/model';
import type { Log } from './services';

export const BOOTSTRAP_ENV = 'FIRECREST_BOOTSTRAP';

export interface BootstrapTarget {
  store(profile: ConnectionProfile, secret: string | undefined): Promise<void>;
}

/**
 * Imports the bootstrap file when there is one; returns the names of the imported profiles.
 * `onOpen` gets its `open` entry (a `firecrest:` URI; anything else is ignored).
 */
export async function importBootstrap(file: string | undefined, target: BootstrapTarget, log: Log, onOpen?: (uri: string) => void): Promise<string[]> {
  if (!file) return [];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    // Already imported by an earlier activation (the file is deleted after use): nothing to do.
    return [];
  }
  // Delete first: even a malformed file must not linger with a secret in it.
  await unlink(file).catch((e: unknown) => log.warn(`could not delete the bootstrap file ${file}: ${String(e)}`));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    log.error(`the bootstrap file ${file} is not JSON; ignored`);
    return [];
  }
  const items = (parsed as { profiles?: unknown }).profiles;
  const imported: string[] = [];
  for (const item of Array.isArray(items) ? (items as unknown[]) : []) {
    const profile = normalizeProfile(item);
    if (typeof profile === 'string') {
      log.warn(`bootstrap: ${profile}`);
      continue;
    }
    const secret = (item as { clientSecret?: unknown }).clientSecret;
    await target.store(profile, typeof secret === 'string' && secret ? secret : undefined);
    imported.push(profile.name);
  }
  log.info(`Imported ${imported.length} connection(s) from the bootstrap file: ${imported.join(', ')}`);
  const open = (parsed as { open?: unknown }).open;
  if (typeof open === 'string' && open.startsWith('firecrest://')) onOpen?.(open);
  return imported;
}
