#!/usr/bin/env node
// Runs a command against a FirecREST deployment.
//  - If FIRECREST_URL is set, the command runs against that deployment as it is (a site checking the
//    extension against its own FirecREST); suites that need the local gateway's fault switches skip.
//  - Otherwise it starts the local gateway (dist/gateway.js) on a free loopback port with a fresh
//    state dir, exports FIRECREST_* for it plus FIRECREST_GATEWAY (its whole JSON line), runs the
//    command, and stops the gateway.
// Usage: node scripts/with-gateway.mjs [--scheduler auto|slurm|local] [--api v1|v2] -- <command...>
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const own = sep >= 0 ? argv.slice(0, sep) : [];
const cmd = sep >= 0 ? argv.slice(sep + 1) : argv;
const opt = (name, dflt) => { const i = own.indexOf(name); return i >= 0 ? own[i + 1] : dflt; };

function runCommand(env) {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: 'inherit', env: { ...process.env, ...env } });
    const fwd = (s) => child.kill(s);
    process.on('SIGINT', fwd); process.on('SIGTERM', fwd);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

export async function startGateway({ scheduler = 'auto', extraArgs = [] } = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'f7t-gw-'));
  // Test runs share small, loaded machines: give remote commands (stat, sha256sum, srun --overlap)
  // more than the real server's 5 s before they count as timed out. Suites that test the time-out
  // set their own through the admin API.
  const config = join(stateDir, 'test-config.json');
  // The site's own tools, as a login profile puts them first in PATH: stubs of `quota` and `lfs`
  // (test/support/site-tools), in a folder every user can read (the state dir is root's alone).
  const tools = mkdtempSync(join(tmpdir(), 'f7t-site-tools-'));
  chmodSync(tools, 0o755);
  const stubs = new URL('../test/support/site-tools/', import.meta.url);
  for (const name of readdirSync(stubs)) {
    copyFileSync(new URL(name, stubs), join(tools, name));
    chmodSync(join(tools, name), 0o755);
  }
  writeFileSync(config, JSON.stringify({ commandTimeoutSeconds: Number(process.env.GATEWAY_COMMAND_TIMEOUT ?? 15), userPath: [tools] }));
  const configArgs = extraArgs.includes('--config') ? [] : ['--config', config];
  const gw = spawn(process.execPath, ['dist/gateway.js', '--host', '127.0.0.1', '--port', '0', '--scheduler', scheduler, '--state-dir', stateDir, ...configArgs, ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: gw.stdout });
    const timer = setTimeout(() => reject(new Error('gateway did not print its JSON line within 60 s')), 60_000);
    rl.once('line', (l) => { clearTimeout(timer); resolve(l); });
    gw.once('exit', (code) => { clearTimeout(timer); reject(new Error(`gateway exited early (code ${code})`)); });
  });
  gw.stdout.resume();
  const info = JSON.parse(line);
  const stop = async () => {
    if (gw.exitCode === null) {
      gw.kill('SIGTERM');
      await new Promise((r) => { const t = setTimeout(() => { gw.kill('SIGKILL'); r(); }, 10_000); gw.once('exit', () => { clearTimeout(t); r(); }); });
    }
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(tools, { recursive: true, force: true });
  };
  return { info, line, stop, stateDir };
}

export function envFor(info, line, api = 'v2') {
  return {
    FIRECREST_URL: api === 'v1' ? info.v1 : info.v2,
    FIRECREST_TOKEN_URL: info.tokenUrl,
    FIRECREST_CLIENT_ID: info.clientId,
    FIRECREST_CLIENT_SECRET: info.clientSecret,
    FIRECREST_SYSTEM: info.systems[0],
    FIRECREST_API_VERSION: api,
    FIRECREST_GATEWAY: line,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Only when run as a script: importing startGateway()/envFor() must not exit the importer.
  if (cmd.length === 0) { console.error('usage: with-gateway.mjs [--scheduler S] [--api v1|v2] -- command ...'); process.exit(2); }
  if (process.env.FIRECREST_URL) {
    console.error(`[with-gateway] using the deployment at ${process.env.FIRECREST_URL} (FIRECREST_URL is set)`);
    process.exit(await runCommand({}));
  }
  const api = opt('--api', process.env.FIRECREST_API_VERSION || 'v2');
  const { info, line, stop } = await startGateway({ scheduler: opt('--scheduler', process.env.GATEWAY_SCHEDULER || 'auto') });
  console.error(`[with-gateway] local gateway up: ${api === 'v1' ? info.v1 : info.v2} (scheduler ${info.scheduler ?? '?'})`);
  let code = 1;
  try { code = await runCommand(envFor(info, line, api)); } finally { await stop(); }
  process.exit(code);
}
