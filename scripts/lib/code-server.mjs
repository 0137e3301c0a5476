// Starting a real VS Code for tests and `npm start`: code-server (VS Code 1.139.1 served to a
// browser, real Node extension host; or 1.103.2, the oldest the extension declares, for the smoke
// run) on a free loopback port with its own temp dirs, and Debian's Chromium driven by
// playwright-core. See ../../../shared/vscode-host-testing.md for the why.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Today's VS Code (the default test host), and the oldest that `engines.vscode` allows with the Node it runs on. */
export const CURRENT_CODE_SERVER = '4.139.1';
export const OLDEST_CODE_SERVER = { version: '4.103.2', vscode: '1.103.2', nodeMajor: 22 };

/**
 * Installs code-server and Chromium when missing (idempotent, fast when present); returns entry.js.
 * `version` and `node` (the binary that will run it) pick another code-server than today's.
 */
export function ensureTestHost({ browser = true, version, node } = {}) {
  const env = {
    ...process.env,
    ...(browser ? {} : { FIRECREST_SKIP_BROWSER: '1' }),
    ...(version ? { CODE_SERVER_VERSION: version } : {}),
    ...(node ? { FIRECREST_CODE_SERVER_NODE: node } : {}),
  };
  const out = execFileSync('bash', [join(repoRoot, 'scripts/install-test-host.sh')], { stdio: ['ignore', 'pipe', 'inherit'], env });
  return out.toString().trim().split('\n').pop();
}

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => res(port)); });
  });
}

const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'update.mode': 'none',
  // npm start's local folder sits inside this repository: no "open the parent repository?" toast.
  'git.openRepositoryInParentFolders': 'never',
  // No model is reachable here: VS Code 1.139's chat would open beside every editor and add its
  // own actions to every diagnostic.
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/**
 * Starts code-server. `root` (default: a fresh temp dir, removed on stop) holds config, user data,
 * extensions and the workspace folder. Returns { url, port, root, userDataDir, workspace, stop }.
 */
export async function startCodeServer({ entry, root, env = {}, settings = {}, logLevel, quiet = true, workspace, port, node = process.execPath } = {}) {
  const ownRoot = !root;
  root ??= mkdtempSync(join(tmpdir(), 'f7t-vscode-'));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  workspace ??= join(root, 'workspace');
  for (const d of [join(userDataDir, 'User'), extensionsDir, workspace]) mkdirSync(d, { recursive: true });
  writeSettings(join(userDataDir, 'User', 'settings.json'), { ...DEFAULT_SETTINGS, ...settings });
  port ??= await freePort();
  writeFileSync(join(root, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const args = [entry, '--config', join(root, 'config.yaml'), '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, ...(logLevel ? ['--log', logLevel] : []), workspace];
  // FIRECREST_TEST_USER_DATA lets the host suite read this session's settings.json and logs.
  const child = spawn(node, args, { env: { ...process.env, FIRECREST_TEST_USER_DATA: userDataDir, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (d) => { output = (output + d.toString()).slice(-20_000); if (!quiet) process.stderr.write(d); };
  child.stdout.on('data', keep); child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return; stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      // Its own process group: the extension host and watchers go with it.
      try { process.kill(-child.pid, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
      await new Promise((r) => {
        const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } r(); }, 5000);
        child.once('exit', () => { clearTimeout(t); r(); });
      });
    }
    if (ownRoot) rmSync(root, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) { await stop(); throw new Error(`code-server exited early (code ${child.exitCode}):\n${output}`); }
    try { if ((await fetch(`${url}/healthz`)).ok) break; } catch { /* not up yet */ }
    if (Date.now() > deadline) { await stop(); throw new Error(`code-server did not answer /healthz within 60 s:\n${output}`); }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, root, userDataDir, extensionsDir, workspace, stop, output: () => output, pid: child.pid };
}

/** Writes `wanted` into settings.json; a kept root (npm start) keeps the user's own values. */
function writeSettings(file, wanted) {
  let current = {};
  if (existsSync(file)) {
    try { current = JSON.parse(readFileSync(file, 'utf8')); } catch { return; /* edited by hand (comments): leave it */ }
  }
  writeFileSync(file, JSON.stringify({ ...wanted, ...current }, null, 2));
}

/**
 * Packages the extension as it is built in dist/ (no rebuild) into `vsix`. A browser's VS Code
 * loads no extension from a development path without its test driver, and a window it opens
 * itself (Open in New Window) gets none: `npm start` and the UI suite install this package.
 */
export function packageBuild(vsix) {
  execFileSync(process.execPath, [join(repoRoot, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '-o', vsix],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  return vsix;
}

/** Installs a .vsix into an extensions dir with code-server's own CLI. */
export function installVsix(entry, vsix, extensionsDir) {
  execFileSync(process.execPath, [entry, '--extensions-dir', extensionsDir, '--install-extension', resolve(vsix), '--force'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The workbench URL opening `folder` with the extension under development (and optionally a test suite). */
export function workbenchUrl(url, { folder, extensionDevelopmentPath = repoRoot, extensionTestsPath } = {}) {
  // The remote authority is the server's host and port (code-server 4.100 also took `remote`).
  const remote = (p) => `vscode-remote://${new URL(url).host}${p}`;
  // extensionDevelopmentPath: null runs the installed extensions only (a packaged .vsix).
  const payload = extensionDevelopmentPath ? [['extensionDevelopmentPath', remote(extensionDevelopmentPath)]] : [];
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  const q = new URLSearchParams();
  if (folder) q.set('folder', folder);
  if (payload.length) q.set('payload', JSON.stringify(payload));
  return `${url}/?${q.toString()}`;
}

/**
 * A built VS Code takes the extension under development and its tests from the workbench URL's
 * `payload` only when its smoke-test driver is enabled (VS Code's server flag
 * `--enable-smoke-test-driver`, which code-server does not pass on). The host suite's browser turns
 * it on in the configuration that the workbench page carries, as that flag would: an init script,
 * run in the page before the workbench reads its meta tag.
 */
function enableSmokeTestDriver() {
  const enable = (meta) => {
    try {
      const config = JSON.parse(meta.getAttribute('data-settings') || '{}');
      config.developmentOptions = Object.assign({}, config.developmentOptions, { enableSmokeTestDriver: true });
      meta.setAttribute('data-settings', JSON.stringify(config));
    } catch {
      // not the workbench's configuration
    }
  };
  new MutationObserver((changes, observer) => {
    for (const c of changes) {
      for (const n of c.addedNodes) {
        if (n instanceof HTMLMetaElement && n.id === 'vscode-workbench-web-configuration') {
          enable(n);
          observer.disconnect();
        }
      }
    }
  }).observe(document, { childList: true, subtree: true });
}

/** Launches headless Chromium (persistent context in a fresh profile dir). Returns { context, page, close }. */
export async function launchBrowser({ headless = true, viewport = { width: 1400, height: 900 } } = {}) {
  const { chromium } = await import('playwright-core');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/install-test-host.sh`);
  const profile = mkdtempSync(join(tmpdir(), 'f7t-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless, viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  // The extension under development and its tests come from the URL's payload (see enableSmokeTestDriver).
  await context.addInitScript(enableSmokeTestDriver);
  let closed = false;
  const close = async () => {
    if (closed) return; closed = true;
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, close };
}

// Workbench chatter that reaches codeAutomationLog on every run and says nothing about the tests.
const NOISE = [/open-vsx\.org/, /^Resolv(ing|ed) connection token/, /^Creating a socket/, /^Updating additional builtin/,
  /^\[Service Worker\]/, /^ChatSessionStore/, /^\[AgentHost\]/, /^\[ChatModel/, /ENOPRO: No file system provider/, /^CodeExpectedError$/, /^\s+at .*\/static\/out\//, /vsda/, /a socket was left hanging/i];

/** True for a workbench log line that only adds noise (see NOISE). */
export function isNoise(line) {
  return NOISE.some((re) => re.test(line));
}

/** Formats the printf-style arguments codeAutomationLog receives. */
export function formatAutomationLog(args) {
  return Array.isArray(args) ? format(...args) : String(args);
}

/** Runs `cleanup` once on SIGINT/SIGTERM, then exits with 130/143. Returns a function removing the handlers. */
export function onSignals(cleanup) {
  const handler = (sig) => { void Promise.resolve(cleanup()).finally(() => process.exit(sig === 'SIGINT' ? 130 : 143)); };
  process.once('SIGINT', handler); process.once('SIGTERM', handler);
  return () => { process.off('SIGINT', handler); process.off('SIGTERM', handler); };
}
