#!/usr/bin/env node
// `npm run test:host:electron`: the SAME host suite (out/test/host/index.js) in desktop VS Code
// through @vscode/test-electron, for machines that can download VS Code (or have one: pass
// --code /path/to/code or set VSCODE_EXECUTABLE). Starts the local gateway unless FIRECREST_URL is
// set. On Linux without a display, run it under `xvfb-run -a`.
// Options: --grep <text>, --vscode-version <1.139.1|stable|insiders>, --code <executable>.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildHostSuite } from './lib/build-host-suite.mjs';
import { onSignals, repoRoot } from './lib/code-server.mjs';
import { envFor, startGateway } from './with-gateway.mjs';

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
process.chdir(repoRoot);

const cleanups = [];
const cleanup = async () => { while (cleanups.length) await cleanups.pop()().catch(() => undefined); };
onSignals(cleanup);

let code = 1;
try {
  if (spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  const suite = await buildHostSuite();
  console.log(`[host:electron] ${suite.files.length} test file(s): ${suite.files.join(', ')}`);
  let env = {};
  if (!process.env.FIRECREST_URL) {
    const gw = await startGateway({ scheduler: process.env.GATEWAY_SCHEDULER || 'auto' });
    cleanups.push(gw.stop);
    env = envFor(gw.info, gw.line, process.env.FIRECREST_API_VERSION || 'v2');
    console.log(`[host:electron] local gateway up: ${env.FIRECREST_URL}`);
  }
  if (opt('--grep')) env.MOCHA_GREP = opt('--grep');
  const root = mkdtempSync(join(tmpdir(), 'f7t-electron-'));
  cleanups.push(async () => rmSync(root, { recursive: true, force: true }));
  const userData = join(root, 'user-data');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const executable = opt('--code') ?? process.env.VSCODE_EXECUTABLE;
  code = await runTests({
    ...(executable ? { vscodeExecutablePath: executable } : { version: opt('--vscode-version') ?? '1.139.1' }),
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: suite.outfile,
    extensionTestsEnv: { ...env, FIRECREST_TEST_USER_DATA: userData },
    // basic: no OS keyring prompt for SecretStorage on a bare desktop or CI runner.
    launchArgs: [workspace, '--user-data-dir', userData, '--disable-extensions', '--disable-workspace-trust', '--password-store=basic', '--skip-welcome', '--skip-release-notes'],
  }).then(() => 0, (e) => { console.error(`[host:electron] ${e instanceof Error ? e.message : String(e)}`); return 1; });
} catch (e) {
  console.error(`[host:electron] ${e instanceof Error ? e.stack : String(e)}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
