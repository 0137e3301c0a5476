/** The gateway's command line: the one JSON line, stable credentials per state dir, clean SIGTERM. */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import type { Json } from './support';

interface Running {
  child: ChildProcessWithoutNullStreams;
  info: Json;
  stdout: () => string;
}

const GATEWAY = join(__dirname, '..', '..', 'dist', 'gateway.js');

function start(stateDir: string): Promise<Running> {
  const child = spawn(process.execPath, [GATEWAY, '--port', '0', '--scheduler', 'local', '--state-dir', stateDir]);
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no JSON line within 30 s')), 30_000);
    const onData = (): void => {
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve({ child, info: JSON.parse(out.slice(0, nl)), stdout: () => out });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited early with ${code}`)));
  });
}

function stop(r: Running): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    if (r.child.exitCode !== null) return resolve({ code: r.child.exitCode, ms: 0 });
    r.child.once('exit', (code) => resolve({ code, ms: Date.now() - started }));
    r.child.kill('SIGTERM');
  });
}

async function fetchToken(info: Json): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret });
  const r = await fetch(info.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  assert.equal(r.status, 200);
  return ((await r.json()) as { access_token: string }).access_token;
}

void describe('gateway command line', { skip: gatewayOnly() }, () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'f7t-cli-'));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  void it('prints one JSON line with every key, on loopback, and stops on SIGTERM', async () => {
    const dir = tempDir();
    const r = await start(dir);
    const { info } = r;
    for (const k of ['v2', 'tokenUrl', 'clientId', 'clientSecret', 'systems', 'user', 'scheduler', 'stateDir', 'admin', 'adminToken', 'clients', 'issuer', 'publicClientId', 'idpUsers']) assert.ok(k in info, k);
    assert.match(info.v2, /^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    assert.match(info.tokenUrl, /^http:\/\/127\.0\.0\.1:\d+\/auth\/token$/);
    assert.deepEqual(info.systems, ['localcluster']);
    assert.equal(info.scheduler, 'local');
    assert.equal(info.stateDir, dir);
    assert.ok(info.clients.length >= 2);
    const live = await fetch(`${info.v2 as string}/status/liveness/`);
    assert.equal(live.status, 200);
    const { code, ms } = await stop(r);
    assert.equal(code, 0);
    assert.ok(ms < 5000, `stopped in ${ms} ms`);
    assert.equal(r.stdout().trim().split('\n').length, 1, 'nothing but the JSON line on stdout');
    await assert.rejects(fetch(`${info.v2 as string}/status/liveness/`), 'the port is closed');
  });

  void it('keeps client secrets and the signing key across restarts of the same state dir', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const tok = await fetchToken(first.info);
    await stop(first);
    assert.equal(statSync(join(dir, 'clients.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'jwt-keys.json')).mode & 0o777, 0o600);
    const second = await start(dir);
    try {
      assert.deepEqual(second.info.clients, first.info.clients);
      assert.notEqual(second.info.adminToken, undefined);
      const r = await fetch(`${second.info.v2 as string}/status/systems`, { headers: { authorization: `Bearer ${tok}` } });
      assert.equal(r.status, 200, 'a token of the previous run is still valid');
    } finally {
      await stop(second);
    }
  });

  void it('refuses unknown arguments with a usage message and nothing on stdout', () => {
    const r = spawnSync(process.execPath, [GATEWAY, '--bogus'], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /usage/);
  });
});
