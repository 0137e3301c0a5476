#!/usr/bin/env node
// `npm run test:ui`: drives the real workbench (code-server + headless Chromium) with Playwright.
// Connects the extension exactly like `npm start` (a one-shot bootstrap file named by
// FIRECREST_BOOTSTRAP), then runs mocha over test/ui/**/*.test.ts; screenshots land in test-results/.
// The extension is packaged as built and installed into code-server, as a user installs it (a
// window that VS Code opens itself, Open in New Window, loads no development folder).
// Options: --grep <text>, --verbose (code-server and browser console output), --vsix <file> (test
// that package instead, e.g. the production one of `npm run package`).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestHost, installVsix, onSignals, packageBuild, repoRoot, startCodeServer, workbenchUrl } from './lib/code-server.mjs';
import { DEMO_PROFILE, seedDemoHome, writeBootstrap } from './lib/demo.mjs';
import { envFor, startGateway } from './with-gateway.mjs';

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const verbose = argv.includes('--verbose');
process.chdir(repoRoot);

const cleanups = [];
const cleanup = async () => { while (cleanups.length) await cleanups.pop()().catch(() => undefined); };
onSignals(cleanup);

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'support' ? [] : findTests(join(dir, e.name))) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []);
}

let code = 1;
try {
  const entry = ensureTestHost();
  if (!argv.includes('--no-build') && !argv.includes('--vsix')) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  let info;
  let env = {};
  if (process.env.FIRECREST_URL) {
    // A site's own deployment: the same bootstrap, built from the FIRECREST_* variables.
    info = { v2: process.env.FIRECREST_URL, tokenUrl: process.env.FIRECREST_TOKEN_URL, clientId: process.env.FIRECREST_CLIENT_ID,
      clientSecret: process.env.FIRECREST_CLIENT_SECRET, systems: [process.env.FIRECREST_SYSTEM],
      apiVersion: process.env.FIRECREST_API_VERSION === 'v1' ? 'v1' : process.env.FIRECREST_API_VERSION === 'v2' ? 'v2' : 'auto' };
    console.log(`[ui] using the deployment at ${info.v2} (FIRECREST_URL is set)`);
  } else {
    // MFA on: the sign-in test goes through the TOTP step (client credentials are not affected).
    const gw = await startGateway({ scheduler: process.env.GATEWAY_SCHEDULER || 'auto', extraArgs: ['--mfa'] });
    cleanups.push(gw.stop);
    info = gw.info;
    env = envFor(gw.info, gw.line, 'v2');
    console.log(`[ui] local gateway up: ${info.v2} (scheduler ${info.scheduler ?? '?'})`);
    const seeded = await seedDemoHome(info, (m) => console.log(m));
    if (seeded.length) console.log(`[ui] sample files: ${seeded.join(', ')}`);
  }
  const secretsDir = mkdtempSync(join(tmpdir(), 'f7t-ui-boot-'));
  cleanups.push(async () => rmSync(secretsDir, { recursive: true, force: true }));
  const bootstrap = writeBootstrap(secretsDir, info, DEMO_PROFILE);

  const csRoot = mkdtempSync(join(tmpdir(), 'f7t-vscode-'));
  cleanups.push(async () => rmSync(csRoot, { recursive: true, force: true }));
  const vsix = opt('--vsix') ?? packageBuild(join(csRoot, 'firecrest-test.vsix'));
  installVsix(entry, vsix, join(csRoot, 'extensions'));
  console.log(`[ui] testing the extension packaged as ${vsix}`);
  const cs = await startCodeServer({ entry, root: csRoot, env: { ...env, FIRECREST_BOOTSTRAP: bootstrap }, quiet: !verbose });
  cleanups.push(cs.stop);
  const url = workbenchUrl(cs.url, { folder: cs.workspace, extensionDevelopmentPath: null });

  const files = findTests(join(repoRoot, 'test/ui')).sort();
  console.log(`[ui] ${files.length} test file(s); screenshots in test-results/`);
  const mochaArgs = ['--import', 'tsx', 'node_modules/mocha/bin/mocha.js', '--ui', 'bdd', '--timeout', '120000',
    '--require', 'test/ui/support/hooks.ts', ...(opt('--grep') ? ['--grep', opt('--grep')] : []), ...files];
  code = await new Promise((resolve) => {
    const child = spawn(process.execPath, mochaArgs, { stdio: 'inherit',
      env: { ...process.env, ...env, FIRECREST_UI_URL: url, FIRECREST_UI_PROFILE: DEMO_PROFILE, FIRECREST_UI_WORKSPACE: cs.workspace,
        ...(verbose ? { FIRECREST_UI_VERBOSE: '1' } : {}) } });
    cleanups.push(async () => { if (child.exitCode === null) child.kill('SIGTERM'); });
    child.on('close', (c) => resolve(c ?? 1));
  });
  if (code !== 0 && !verbose) console.error(cs.output().split('\n').slice(-30).join('\n'));
} catch (e) {
  console.error(`[ui] ${e instanceof Error ? e.stack : String(e)}`);
  code = 1;
} finally {
  await cleanup();
}
console.log(`[ui] exit code ${code}`);
process.exit(code);
