/**
 * The host suite's entry: the `run()` contract of @vscode/test-electron and @vscode/test-web, used
 * by both launchers (code-server here, desktop VS Code elsewhere). The bundle built by
 * scripts/lib/build-host-suite.mjs wraps `runSuite` with the list of test files it found.
 */
import Mocha from 'mocha';

export async function runSuite(files: string[], load: (file: string) => void): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: Number(process.env.FIRECREST_TEST_TIMEOUT_MS ?? 60_000),
    ...(process.env.MOCHA_GREP ? { grep: process.env.MOCHA_GREP } : {}),
  });
  // Set describe/it/before... on the global object, as `mocha` does before requiring files.
  mocha.suite.emit('pre-require', globalThis, 'host-suite', mocha);
  for (const f of files) {
    try {
      load(f);
    } catch (e) {
      throw new Error(`loading ${f} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} host test(s) failed.`);
}
