/**
 * `npm start` as a process manager or an IDE runs it: started through npm, stopped by a SIGTERM to
 * npm's pid. Everything it started (the gateway, code-server and its extension host) must stop too,
 * and the extension must be in the served VS Code (a browser loads none from a development path).
 * Needs code-server (scripts/install-test-host.sh); about a minute.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const freePort = (): Promise<number> => new Promise((resolve, reject) => {
  const s = createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

/** Processes whose command line or environment names `mark` (the state folder). */
function processesWith(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (cmd.includes(mark) || env.includes(mark)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const answers = async (url: string): Promise<boolean> => {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
};

void describe('npm start', () => {
  const state = mkdtempSync(join(tmpdir(), 'f7t-start-'));
  after(() => {
    for (const pid of processesWith(state)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(state, { recursive: true, force: true });
  });

  void it('stops everything it started when npm\'s own pid gets SIGTERM', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--', '--web', '--no-build', '--no-slurm', '--scheduler', 'local', '--port', String(port)], {
      env: { ...process.env, FIRECREST_STATE_DIR: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const ready = await new Promise<{ gateway: string; workbench: string }>((resolve, reject) => {
      npm.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const gateway = /FirecREST gateway: (http:\/\/\S+)/.exec(out)?.[1];
        const workbench = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?\S+)$/m.exec(out)?.[1];
        if (gateway && workbench) resolve({ gateway, workbench });
      });
      npm.once('exit', (code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${out.slice(-3000)}`)));
    });
    assert.ok(await answers(`${ready.gateway}/status/systems`), 'the gateway answers');
    // Where to look: the admin API with its token, and the request log, which the request above reached.
    const admin = /admin API \(faults, settings, stats\): (http:\/\/\S+) with the header "Authorization: Bearer ([\w-]+)"/.exec(out);
    assert.ok(admin, out.slice(-3000));
    const stats = await fetch(`${admin[1]}/stats`, { headers: { authorization: `Bearer ${admin[2]}` } });
    assert.equal(stats.status, 200);
    const log = /request log: (\S+)/.exec(out)?.[1];
    assert.ok(log, 'the request log is named');
    assert.match(readFileSync(log, 'utf8'), /GET \/v2\/status\/systems \d{3}/);
    assert.ok(await answers(ready.workbench), 'code-server answers');
    // The served VS Code has the extension installed (not loaded from a development path).
    assert.doesNotMatch(new URL(ready.workbench).searchParams.get('payload') ?? '', /extensionDevelopmentPath/);
    assert.ok(readdirSync(join(state, 'code-server', 'extensions')).some((d) => d.startsWith('firecrest-community.firecrest-vscode-')), 'the extension is installed');
    assert.ok(processesWith(state).length > 0, 'its processes are seen by their state folder');

    npm.kill('SIGTERM');
    await new Promise((resolve) => (npm.exitCode !== null ? resolve(undefined) : npm.once('exit', resolve)));
    let left: number[] = [];
    for (const end = Date.now() + 30_000; Date.now() < end;) {
      left = processesWith(state);
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const names = left.map((pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 3).join(' '); } catch { return String(pid); } });
    assert.deepEqual(names, [], 'nothing it started runs on');
    assert.equal(await answers(ready.workbench), false, 'code-server is gone');
    assert.equal(await answers(`${ready.gateway}/status/systems`), false, 'the gateway is gone');
  });
});
