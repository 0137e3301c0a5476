/**
 * The host suite's entry: the `run()` contract of @vscode/test-electron and @vscode/test-web, used
 * by both launchers (code-server here, desktop VS Code elsewhere). The bundle built by
 * scripts/lib/build-host-suite.mjs exports its own `run()` over the test files it found at build
 * time; `run()` below serves a suite compiled file by file (e.g. by tsc into out/), finding the
 * `*.test.js` files next to it.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Mocha from 'mocha';

export async function runSuite(files: string[], load: (file: string) => void): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    // A test's waits are guards against a hang, not budgets: on a loaded machine (two CI runs on 2
    // cores) API v1 listings (tasks), sacct and Slurm jobs take a good part of each, and a test's
    // time is their sum. Suites whose waits add up further set their own.
    timeout: Number(process.env.FIRECREST_TEST_TIMEOUT_MS ?? 180_000),
    ...(process.env.MOCHA_GREP ? { grep: process.env.MOCHA_GREP } : {}),
  });
  // Set describe/it/before... on the global object, as `mocha` does before requiring files.
  mocha.suite.emit('pre-require', globalThis, 'host-suite', mocha);
  for (const f of selected(files)) {
    try {
      load(f);
    } catch (e) {
      throw new Error(`loading ${f} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} host test(s) failed.`);
}

/**
 * FIRECREST_HOST_FILES (`fs,jobs`): only the files whose base name contains one of the words;
 * FIRECREST_HOST_SKIP_FILES: not those.
 */
function selected(files: string[]): string[] {
  const list = (v: string | undefined) => (v ?? '').split(',').map((w) => w.trim()).filter(Boolean);
  const base = (f: string) => f.split('/').pop() ?? f;
  const words = list(process.env.FIRECREST_HOST_FILES);
  const skip = list(process.env.FIRECREST_HOST_SKIP_FILES);
  return files.filter((f) => (words.length === 0 || words.some((w) => base(f).includes(w))) && !skip.some((w) => base(f).includes(w)));
}

export function run(): Promise<void> {
  const load = createRequire(__filename);
  return runSuite(findCompiledTests(__dirname), (f) => {
    load(f);
  });
}

function findCompiledTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? findCompiledTests(join(dir, e.name)) : e.name.endsWith('.test.js') ? [join(dir, e.name)] : []))
    .sort();
}
