import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MalformedResponseError, ServerError, UnavailableError, createClient, type FirecrestClient } from '../../src/core/index';

/** Answers wrong shapes on purpose: a fault no FirecREST-compatible server can be asked for. */
function wrongServer(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json', 'f7t-appversion': '2.5.6' }).end(JSON.stringify(body)); };
    const html = (status: number) => { res.writeHead(status, { 'content-type': 'text/html' }).end('<html><body><h1>Welcome to nginx</h1></body></html>'); };
    if (path === '/status/systems') return json(200, { systems: [{ nombre: 'alps' }] });
    if (path === '/status/alps/partitions') return json(200, { partitions: 'none' });
    if (path === '/filesystem/alps/ops/ls') return json(200, { output: [{ name: 'x', type: '-', user: 'a', group: 'g', permissions: 'rw-r--r--', lastModified: '2025-01-01T00:00:00' }] });
    if (path === '/filesystem/alps/ops/stat') return html(200);
    if (path === '/compute/alps/jobs') return html(502);
    if (path === '/status/alps/nodes') return html(500);
    if (path === '/filesystem/alps/ops/rm') return json(200, {});
    if (path === '/status/alps/userinfo') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"user": {');
    return json(404, { errorType: 'error', message: 'Not Found', causedBy: null, data: null, user: null });
  });
}

void describe('malformed answers (local wrong-shape server)', () => {
  let server: Server;
  let c: FirecrestClient;
  before(async () => {
    server = wrongServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    c = await createClient({ profile: { name: 'wrong', url, apiVersion: 'v2' }, staticToken: 'opaque-test-token' });
  });
  after(async () => {
    await c.dispose();
    await new Promise((r) => server.close(r));
  });

  void it('a wrong shape is MalformedResponseError naming the route and the field', async () => {
    await assert.rejects(c.systems(), (e: unknown) => e instanceof MalformedResponseError && e.route === 'GET /status/systems' && /systems\.0\.name/.test(e.message));
    await assert.rejects(c.partitions('alps'), (e: unknown) => e instanceof MalformedResponseError && e.route === 'GET /status/{system}/partitions');
    await assert.rejects(c.list('alps', '/x'), (e: unknown) => e instanceof MalformedResponseError && /output\.0\.size/.test(e.message));
  });

  void it('a success status the route does not give is a ServerError saying what was expected', async () => {
    await assert.rejects(c.remove('alps', '/x'), (e: unknown) => e instanceof ServerError && e.status === 200 && /expected 204/.test(e.message));
  });

  void it('truncated JSON is MalformedResponseError', async () => {
    await assert.rejects(c.userInfo('alps'), (e: unknown) => e instanceof MalformedResponseError && e.route === 'GET /status/{system}/userinfo');
  });

  void it('an HTML page where JSON was expected says the server did not answer like FirecREST', async () => {
    await assert.rejects(c.stat('alps', '/x'), (e: unknown) => e instanceof MalformedResponseError && /did not answer like FirecREST.*text\/html.*nginx/.test(e.message));
  });

  void it('an HTML error page is Unavailable (502) or ServerError (500) with a clear message', async () => {
    await assert.rejects(c.jobs('alps'), (e: unknown) => e instanceof UnavailableError && e.status === 502 && /did not answer like FirecREST/.test(e.message));
    await assert.rejects(c.nodes('alps'), (e: unknown) => e instanceof ServerError && e.status === 500 && /did not answer like FirecREST/.test(e.message));
  });
});
