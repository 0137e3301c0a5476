import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnavailableError, createClient, type ConnectionProfile, type Logger } from '../../src/core/index';

/** A local HTTPS server with a self-signed certificate: the site-CA case, produced for real. */
void describe('TLS options of a profile', () => {
  let dir: string;
  let server: Server;
  let url: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'f7t-core-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'f7t-appversion': '2.5.6' }).end(JSON.stringify({ systems: [{ name: 'tls', fileSystems: [] }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const profile = (over: Partial<ConnectionProfile>): ConnectionProfile => ({ name: 'tls', url, apiVersion: 'v2', ...over });

  void it('an unknown CA is refused (UnavailableError)', async () => {
    const c = await createClient({ profile: profile({}), staticToken: 'opaque-token' });
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnavailableError && /certificate|self.signed/i.test(e.message));
    } finally {
      await c.dispose();
    }
  });

  void it('caFile adds the site CA', async () => {
    const c = await createClient({ profile: profile({ caFile: join(dir, 'cert.pem') }), staticToken: 'opaque-token' });
    try {
      assert.equal((await c.systems())[0].name, 'tls');
    } finally {
      await c.dispose();
    }
  });

  void it('insecureSkipTlsVerify works for that profile only, with one warning', async () => {
    const warnings: string[] = [];
    const logger: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m: string) => { warnings.push(m); }, error: () => undefined };
    const c = await createClient({ profile: profile({ insecureSkipTlsVerify: true }), staticToken: 'opaque-token', logger });
    const strict = await createClient({ profile: profile({}), staticToken: 'opaque-token' });
    try {
      await c.systems();
      await c.systems();
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /verification is OFF/);
      await assert.rejects(strict.systems(), UnavailableError);
    } finally {
      await c.dispose();
      await strict.dispose();
    }
  });
});
