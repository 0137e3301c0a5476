/**
 * The extension's bundles that Node has loaded so far. scripts/build.mjs splits the extension into
 * an entry (dist/extension.js), a shared bundle, and parts that load on first use (the client, the
 * accounting panel, zod); activation records this list so that the host tests and
 * bench:activation can check that the lazy parts really wait for their first use.
 */
import { basename, dirname } from 'node:path';

const BUNDLE = /^extension(-[\w-]+)?\.js$/;

/** File names (e.g. `extension-client.js`) of the bundles in `dir` that are in the require cache. */
export function loadedBundles(dir: string = __dirname): string[] {
  return Object.keys(require.cache)
    .filter((file) => dirname(file) === dir && BUNDLE.test(basename(file)))
    .map((file) => basename(file))
    .sort();
}
