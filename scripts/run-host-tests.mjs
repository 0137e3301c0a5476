#!/usr/bin/env node
// `npm run test:host`: the host suite (test/host/**/*.test.ts) inside a real VS Code: code-server
// 4.139.1 (VS Code 1.139.1) + headless Chromium. Builds the extension and the suite, starts the local gateway (or
// uses the deployment named by FIRECREST_URL), runs the suite once, prints mocha's output and exits
// with its result. Everything started is stopped in `finally`, on SIGINT/SIGTERM and on timeout.
// Options: --grep <text> (mocha grep), --timeout <s> (whole run, default 1800: a guard against a hung workbench, not a budget; a loaded machine takes 600 s and more), --verbose,
// --api v1|v2 (the API generation the suites connect with; default FIRECREST_API_VERSION, else v2:
// against the local gateway v1 means its `/v1` base URL), --files <a,b> (only the test files whose
// name contains one of these, e.g. `fs,jobs`), --compat upstream (the gateway in its upstream compat mode),
// --oldest (the oldest VS Code that engines.vscode allows, 1.103.2, on the Node 22 it runs on,
// instead of today's: `npm test` runs the smoke suite there).
import { execFileSync, spawnSync } from 'node:child_process';
import { OLDEST_CODE_SERVER, ensureTestHost, formatAutomationLog, isNoise, launchBrowser, onSignals, repoRoot, startCodeServer, workbenchUrl } from './lib/code-server.mjs';
import { buildHostSuite } from './lib/build-host-suite.mjs';
import { envFor, startGateway } from './with-gateway.mjs';

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const verbose = argv.includes('--verbose');
const overallMs = Number(opt('--timeout') ?? 1800) * 1000;
process.chdir(repoRoot);

const cleanups = [];
const cleanup = async () => { while (cleanups.length) await cleanups.pop()().catch(() => undefined); };
onSignals(cleanup);

let code = 1;
try {
  const oldest = argv.includes('--oldest');
  // The oldest VS Code's code-server runs on the Node line it asks for (scripts/ensure-node.sh installs it).
  const node = oldest ? execFileSync('bash', ['scripts/ensure-node.sh', String(OLDEST_CODE_SERVER.nodeMajor)], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim() : process.execPath;
  const entry = ensureTestHost(oldest ? { version: OLDEST_CODE_SERVER.version, node } : {});
  if (oldest) console.log(`[host] the oldest VS Code the extension declares: ${OLDEST_CODE_SERVER.vscode} (code-server ${OLDEST_CODE_SERVER.version}, ${node})`);
  if (!process.argv.includes('--no-build')) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const suite = await buildHostSuite();
  console.log(`[host] ${suite.files.length} test file(s): ${suite.files.join(', ')}`);

  const api = opt('--api') ?? process.env.FIRECREST_API_VERSION ?? 'v2';
  if (!/^v?[12]/.test(api)) throw new Error(`--api ${api}: expected v1 or v2`);
  let env = {};
  if (process.env.FIRECREST_URL) {
    // A site's deployment: FIRECREST_URL must already be its base URL of that API generation.
    env = { FIRECREST_API_VERSION: api };
    console.log(`[host] using the deployment at ${process.env.FIRECREST_URL} (FIRECREST_URL is set), API ${api}`);
  } else {
    // --compat upstream: the gateway behaves as the upstream servers were observed to (README).
    const compat = opt('--compat');
    const gw = await startGateway({ scheduler: process.env.GATEWAY_SCHEDULER || 'auto', extraArgs: compat ? ['--compat', compat] : [] });
    cleanups.push(gw.stop);
    env = envFor(gw.info, gw.line, api.includes('1') ? 'v1' : 'v2');
    console.log(`[host] local gateway up: ${env.FIRECREST_URL} (API ${env.FIRECREST_API_VERSION}, scheduler ${gw.info.scheduler ?? '?'}${compat ? `, compat ${compat}` : ''})`);
  }
  if (opt('--grep')) env.MOCHA_GREP = opt('--grep');
  if (opt('--files')) env.FIRECREST_HOST_FILES = opt('--files');
  if (opt('--skip-files')) env.FIRECREST_HOST_SKIP_FILES = opt('--skip-files');

  const cs = await startCodeServer({ entry, env, logLevel: process.env.FIRECREST_TEST_LOG_LEVEL, quiet: !verbose, node });
  cleanups.push(cs.stop);
  const browser = await launchBrowser();
  cleanups.push(browser.close);
  const { page } = browser;

  const result = new Promise((resolve) => {
    // Both BEFORE navigating: the workbench looks for them when the extension host starts tests.
    void page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = formatAutomationLog(args);
      if (!verbose && isNoise(line)) return;
      (type === 'error' ? process.stderr : process.stdout).write(line + '\n');
    });
    void page.exposeFunction('codeAutomationExit', (exitCode) => resolve(Number(exitCode)));
  });
  if (verbose) page.on('console', (m) => console.error(`[browser:${m.type()}] ${m.text()}`));
  const timeout = new Promise((resolve) => {
    const t = setTimeout(() => { console.error(`[host] timed out after ${overallMs / 1000} s`); resolve(124); }, overallMs);
    t.unref();
  });
  await page.goto(workbenchUrl(cs.url, { folder: cs.workspace, extensionTestsPath: suite.outfile }));
  code = await Promise.race([result, timeout]);
  if (code === 124 || verbose) console.error(cs.output().split('\n').slice(-40).join('\n'));
} catch (e) {
  console.error(`[host] ${e instanceof Error ? e.stack : String(e)}`);
  code = 1;
} finally {
  await cleanup();
}
console.log(`[host] exit code ${code}`);
process.exit(code);
