// What `npm start` and the UI suite hand to the extension: a one-shot bootstrap file (the
// extension imports it into SecretStorage + settings on activation and deletes it), and a few
// sample files in the user's home, written through the gateway's API as that user.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './code-server.mjs';

export const DEMO_PROFILE = 'local';
/** `npm start`'s second connection: the same cluster, signed in as a person in the browser. */
export const SIGN_IN_PROFILE = 'local-sso';

/** The connection profile of a gateway JSON line (no secret in it). */
export function profileFor(info, name = DEMO_PROFILE) {
  return { name, url: info.v2, apiVersion: info.apiVersion ?? 'v2', tokenUrl: info.tokenUrl, clientId: info.clientId, defaultSystem: info.systems[0] };
}

/** Writes the bootstrap file (mode 0600) into `dir`; returns its path. `open`: a firecrest:// file to show first (with the walkthrough). */
export function writeBootstrap(dir, info, name = DEMO_PROFILE, open = undefined, signIn = undefined) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `bootstrap-${process.pid}-${Date.now()}.json`);
  const profiles = [{ ...profileFor(info, name), clientSecret: info.clientSecret }];
  if (signIn) profiles.push(signInProfileFor(info, signIn));
  writeFileSync(file, JSON.stringify({ profiles, ...(open ? { open } : {}) }), { mode: 0o600 });
  return file;
}

/** A second profile of the same gateway where a person signs in through its identity provider (no secret). */
export function signInProfileFor(info, name) {
  return { name, url: info.v2, apiVersion: info.apiVersion ?? 'v2', auth: 'oidc', issuer: info.issuer, clientId: info.publicClientId, defaultSystem: info.systems[0] };
}

// The walkthrough's example script, as the extension ships it.
const HELLO = readFileSync(join(repoRoot, 'media', 'walkthrough', 'hello.sbatch'), 'utf8');

const FILES = {
  'hello.sbatch': HELLO,
  'README-firecrest.txt': [
    'This home directory is served by the local FirecREST gateway started by `npm start`.',
    '',
    '- Open files from the FirecREST view (activity bar) or the Explorer.',
    '- hello.sbatch is a small batch job: submit it and watch it in the Jobs view.',
    '- data/numbers.csv and analysis/sum.py are something to edit and run.',
    '',
  ].join('\n'),
  // Something to edit and run; the UI tests make the same files in folders of their own.
  ...JSON.parse(readFileSync(join(repoRoot, 'scripts/lib/sample-project.json'), 'utf8')),
};

/** Puts the sample files into the user's home unless they are there already. Returns what it wrote. */
export async function seedDemoHome(info, log = console.error) {
  const core = createRequire(import.meta.url)(join(repoRoot, 'dist/core.js'));
  const client = await core.createClient({ profile: profileFor(info, 'seed'), clientSecret: info.clientSecret });
  const system = info.systems[0];
  const home = `/home/${info.user}`;
  const written = [];
  try {
    for (const [rel, text] of Object.entries(FILES)) {
      const path = `${home}/${rel}`;
      const dir = path.slice(0, path.lastIndexOf('/'));
      const exists = await client.stat(system, path).then(() => true, (e) => {
        if (e instanceof core.NotFoundError) return false;
        throw e;
      });
      if (exists) continue;
      if (dir !== home) await client.mkdir(system, dir, { parents: true });
      await client.uploadSmall(system, dir, path.slice(dir.length + 1), new TextEncoder().encode(text));
      written.push(rel);
    }
  } catch (e) {
    log(`[demo] could not write the sample files: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await client.dispose();
  }
  return written;
}
