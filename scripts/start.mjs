#!/usr/bin/env node
// `npm start`: the extension, connected, in a real VS Code within a minute of cloning.
//  1. installs what is missing (npm dependencies; the browser-served VS Code when needed),
//  2. builds, starts Slurm when it is installed (else the gateway's built-in scheduler),
//  3. starts the local FirecREST gateway with its state in .state/gateway and seeds the demo home
//     (hello.sbatch and a few files) through the API as the user,
//  4. hands the connection to the extension through a one-shot bootstrap file (FIRECREST_BOOTSTRAP:
//     the extension moves the secret into VS Code's SecretStorage and deletes the file),
//  5. opens desktop VS Code (`code` on PATH) or else code-server on 127.0.0.1 and prints its URL.
// Ctrl-C stops everything it started, and so does a SIGTERM to it or to the `npm` that runs it (a
// process manager or an IDE stops `npm start` by npm's pid, and npm leaves its child running: the
// parent is watched). Options: --web (always code-server), --port N, --scheduler auto|slurm|local,
// --no-slurm, --no-build. FIRECREST_STATE_DIR: where the state goes (default .state).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
process.chdir(repoRoot);
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const say = (m) => console.log(`[start] ${m}`);
const state = process.env.FIRECREST_STATE_DIR || join(repoRoot, '.state');

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
}
const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

const cleanups = [];
let stopping = false;
async function stopAll(code = 0) {
  if (stopping) return; stopping = true;
  say('stopping…');
  while (cleanups.length) await Promise.resolve(cleanups.pop()()).catch(() => undefined);
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
process.on('SIGHUP', () => void stopAll(0));
// `npm start` stopped by npm's pid: npm exits and this process is handed to another parent.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) void stopAll(0); }, 500).unref();

try {
  if (!existsSync(join(repoRoot, 'node_modules/esbuild')) || !existsSync(join(repoRoot, 'node_modules/playwright-core'))) {
    say('installing npm dependencies');
    run('npm', ['install', '--no-audit', '--no-fund'], 'npm install');
  }
  // --no-build: the bundles in dist/ as they are (a test beside other suites that use them).
  if (!argv.includes('--no-build') || !existsSync(join(repoRoot, 'dist/extension.js'))) run(process.execPath, ['scripts/build.mjs'], 'build');

  let scheduler = opt('--scheduler', process.env.GATEWAY_SCHEDULER || 'auto');
  if (scheduler !== 'local' && !argv.includes('--no-slurm') && onPath('slurmctld') && process.getuid?.() === 0) {
    const wasRunning = spawnSync('pgrep', ['-x', 'slurmctld'], { stdio: 'ignore' }).status === 0;
    if (!wasRunning) {
      say('starting Slurm (scripts/slurm.sh up)');
      const up = spawnSync('bash', ['scripts/slurm.sh', 'up'], { stdio: 'inherit' });
      if (up.status === 0) cleanups.push(() => spawnSync('bash', ['scripts/slurm.sh', 'down'], { stdio: 'inherit' }));
      else say('Slurm did not start; the gateway falls back to its built-in scheduler');
    }
  }

  mkdirSync(join(state, 'gateway'), { recursive: true });
  // The gateway's request log (one line per request, with the client's request id) goes to a file
  // that a bug report can quote.
  const requestLog = join(state, 'gateway', 'requests.log');
  const logFd = openSync(requestLog, 'a');
  const gw = spawn(process.execPath, ['dist/gateway.js', '--host', '127.0.0.1', '--port', opt('--gateway-port', '0'), '--scheduler', scheduler, '--state-dir', join(state, 'gateway'), '--verbose'], { stdio: ['ignore', 'pipe', logFd] });
  closeSync(logFd);
  cleanups.push(() => new Promise((r) => { if (gw.exitCode !== null) return r(); gw.once('exit', r); gw.kill('SIGTERM'); setTimeout(() => { gw.kill('SIGKILL'); r(); }, 10_000).unref(); }));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: gw.stdout });
    rl.once('line', resolve);
    gw.once('exit', (c) => reject(new Error(`the gateway exited (code ${c}); its log: ${requestLog}`)));
  });
  gw.stdout.resume();
  const info = JSON.parse(line);
  say(`FirecREST gateway: ${info.v2} (scheduler ${info.scheduler ?? scheduler}, systems ${info.systems.join(', ')}, user ${info.user})`);
  say(`request log: ${requestLog}`);
  if (info.admin) say(`admin API (faults, settings, stats): ${info.admin} with the header "Authorization: Bearer ${info.adminToken}"`);

  const { seedDemoHome, writeBootstrap, DEMO_PROFILE, SIGN_IN_PROFILE } = await import('./lib/demo.mjs');
  const seeded = await seedDemoHome(info, (m) => say(m));
  if (seeded.length) say(`sample files in /home/${info.user}: ${seeded.join(', ')}`);
  const bootstrapDir = join(state, 'bootstrap');
  const remoteHome = `firecrest://${info.systems[0]}/home/${info.user}`;
  // hello.sbatch opens first, with the getting-started walkthrough beside it.
  // A second connection to the same cluster shows the person's sign-in (identity provider, Accounts menu).
  const signIn = info.issuer ? SIGN_IN_PROFILE : undefined;
  const bootstrap = writeBootstrap(bootstrapDir, info, DEMO_PROFILE, `${remoteHome}/hello.sbatch`, signIn);
  cleanups.push(() => rmSync(bootstrap, { force: true }));
  const env = { ...process.env, FIRECREST_BOOTSTRAP: bootstrap };
  const workspace = join(state, 'workspace');
  mkdirSync(workspace, { recursive: true });
  // The window opens on the remote home itself (the extension's firecrest:// file system);
  // --local-folder opens an empty local folder instead.
  const remote = !argv.includes('--local-folder');

  const desktop = !argv.includes('--web') && onPath('code');
  if (desktop) {
    say('opening VS Code with the extension (close the window or press Ctrl-C to stop)');
    // As root, desktop VS Code starts only with --no-sandbox (and its own user data dir, given here).
    const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    const code = spawn('code', ['--wait', '--new-window', ...rootArgs, '--user-data-dir', join(state, 'vscode-user'), '--password-store=basic',
      `--extensionDevelopmentPath=${repoRoot}`, ...(remote ? ['--folder-uri', remoteHome] : [workspace])], { stdio: 'inherit', env });
    cleanups.push(() => { if (code.exitCode === null) code.kill('SIGTERM'); });
    code.on('exit', () => void stopAll(0));
  } else {
    const { ensureTestHost, installVsix, packageBuild, startCodeServer, workbenchUrl } = await import('./lib/code-server.mjs');
    if (!onPath('code')) say('no desktop `code` on PATH: serving VS Code to your browser with code-server');
    const entry = ensureTestHost({ browser: false });
    const root = join(state, 'code-server');
    const port = opt('--port', process.env.PORT);
    // A browser's VS Code loads no extension from a development path (only its test driver does):
    // the extension as it was just built goes into this code-server's extensions, as a user's would.
    installVsix(entry, packageBuild(join(state, 'firecrest-dev.vsix')), join(root, 'extensions'));
    const cs = await startCodeServer({ entry, root, workspace, env, port: port ? Number(port) : undefined });
    cleanups.push(cs.stop);
    const url = workbenchUrl(cs.url, { folder: remote ? remoteHome : workspace, extensionDevelopmentPath: null });
    say('VS Code is ready. Open this URL in a browser on this machine (Ctrl-C stops everything):');
    console.log(`\n  ${url}\n`);
    say(`the FirecREST view is in the activity bar; the connection is "${DEMO_PROFILE}". hello.sbatch (in your remote home) is open, with the getting-started walkthrough.`);
  }
  if (signIn) {
    const people = (info.idpUsers ?? []).map((u) => `${u.login} / ${u.password}`).join(', ');
    say(`"${signIn}" is the same cluster for a person: Sign In on it (FirecREST view or the Accounts menu) opens the identity provider's login page. Users: ${people}.`);
  }
} catch (e) {
  console.error(`[start] ${e instanceof Error ? e.message : String(e)}`);
  await stopAll(1);
}
