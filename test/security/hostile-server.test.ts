/**
 * Data from any server is untrusted (SECURITY.md): a hostile FirecREST on loopback answers with
 * names that climb out of a folder and with a body far larger than any real answer. The client
 * must leave the bad entries out (saying so in its log), refuse the body with a typed error that
 * names the route, and not grow by the size of the answer (issue 15, findings 2 and 6).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient, InvalidInputError, ResponseTooLargeError, type FirecrestClient, type Logger } from '../../src/core/index';
import { entryNameProblem } from '../../src/core/entryNames';
import { Transport } from '../../src/core/http/transport';

const HOSTILE_NAMES = ['../../../x', 'a/b', '..', '.', '', 'nul\0byte', '/etc/passwd'];

function entry(name: string): Record<string, unknown> {
  return { name, type: '-', linkTarget: null, user: 'alice', group: 'alice', permissions: 'rw-r--r--', lastModified: '2026-11-25T10:00:00', size: '3' };
}

let server: Server;
let served = 0;
/** Every path the server was asked for. */
const asked: string[] = [];
let base = '';

function hostile(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push(url.pathname);
    if (url.pathname === '/status/systems') {
      // 300 MiB of JSON-looking bytes, sent as fast as the client takes them, without a length.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      res.write('{"systems":[');
      let sent = 0;
      const pump = (): void => {
        while (sent < 300) {
          sent++;
          served += chunk.length;
          if (!res.write(chunk)) { res.once('drain', pump); return; }
        }
        res.end(']}');
      };
      res.on('close', () => { sent = 1e9; });
      pump();
      return;
    }
    if (url.pathname === '/status/declared') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 31) });
      res.write('{');
      return;
    }
    if (url.pathname.endsWith('/ops/ls')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ output: [...HOSTILE_NAMES, 'ok.txt', 'sub dir'].map(entry) }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errorType: 'error', message: 'Not Found', causedBy: null, data: null, user: null }));
  });
}

function recorder(lines: string[]): Logger {
  const push = (m: unknown, ...a: unknown[]): void => { lines.push([m, ...a].map(String).join(' ')); };
  return { trace: push, debug: push, info: push, warn: push, error: push };
}

async function hostileClient(lines: string[]): Promise<FirecrestClient> {
  return createClient({ profile: { name: 'hostile', url: base, apiVersion: 'v2' }, staticToken: 'not-a-real-token', logger: recorder(lines), requestTimeoutMs: 60_000 });
}

before(async () => {
  server = hostile();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

void describe('client against a hostile server', () => {
  void it('leaves out listing entries whose names could climb out of a folder, and logs each', async () => {
    const lines: string[] = [];
    const c = await hostileClient(lines);
    try {
      const names = (await c.list('cluster', '/home/alice')).map((e) => e.name);
      assert.deepEqual(names, ['ok.txt', 'sub dir']);
      const refused = lines.filter((l) => /which was left out/.test(l));
      assert.equal(refused.length, HOSTILE_NAMES.length, refused.join('\n'));
      assert.ok(refused.some((l) => l.includes('"../../../x"') && l.includes('/ops/ls')), 'the log names the entry and the route');
    } finally {
      await c.dispose();
    }
  });

  void it('refuses a 300 MiB answer with ResponseTooLargeError naming the route, without holding it', async () => {
    const lines: string[] = [];
    const c = await hostileClient(lines);
    global.gc?.();
    const before = process.memoryUsage().rss;
    try {
      await assert.rejects(c.systems(), (e: unknown) => {
        assert.ok(e instanceof ResponseTooLargeError, String(e));
        assert.equal(e.route, 'GET /status/systems');
        assert.match(e.message, /larger than \d+ bytes/);
        return true;
      });
      const grown = (process.memoryUsage().rss - before) / 2 ** 20;
      assert.ok(grown < 64, `the process grew by ${grown.toFixed(0)} MiB`);
      assert.ok(served < 64 * 2 ** 20, `the server could send only ${(served / 2 ** 20).toFixed(0)} MiB before the client hung up`);
    } finally {
      await c.dispose();
    }
  });

  void it('refuses an answer whose Content-Length is over the cap before reading it', async () => {
    const t = new Transport({ logger: recorder([]) });
    try {
      await assert.rejects(
        t.send({ method: 'GET', url: new URL(`${base}/status/declared`), route: 'GET /status/declared', timeoutMs: 10_000 }),
        (e: unknown) => e instanceof ResponseTooLargeError && e.route === 'GET /status/declared',
      );
    } finally {
      await t.close();
    }
  });
});

void describe('job ids', () => {
  void it('refuses an id that is not a job id before any request: `.` and `..` would reach other routes (security review 3, finding 16)', async () => {
    for (const apiVersion of ['v2', 'v1'] as const) {
      const c = await createClient({ profile: { name: 'hostile', url: base, apiVersion }, staticToken: 'not-a-real-token', requestTimeoutMs: 10_000 });
      try {
        asked.length = 0;
        for (const id of ['.', '..', '', '12/../13', '12?x=1', '-1']) {
          for (const [what, call] of [
            ['cancel', () => c.cancelJob('cluster', id)],
            ['metadata', () => c.jobMetadata('cluster', id)],
            ['job', () => c.job('cluster', id)],
            ['wait', () => c.waitForJob('cluster', id, { overallTimeoutMs: 1000 })],
            ...(apiVersion === 'v2' ? [['attach', () => c.attachToJob('cluster', id, 'true')] as const] : []),
          ] as const) {
            await assert.rejects(call(), (e: unknown) => e instanceof InvalidInputError && /is not a job id/.test(e.message), `${apiVersion} ${what} ${JSON.stringify(id)}`);
          }
        }
        // Any other route parameter: a system named `..` would climb out of the route too.
        if (apiVersion === 'v2') await assert.rejects(c.list('..', '/home/alice'), (e: unknown) => e instanceof InvalidInputError && /not a valid system/.test(e.message));
        assert.deepEqual(asked, [], 'no request reached the server');
      } finally {
        await c.dispose();
      }
    }
  });
});

void describe('entry names', () => {
  void it('accepts ordinary names, refuses separators, dot segments and NUL', () => {
    for (const ok of ['a', 'a b', '.hidden', '..data', 'ü✓', '-rf', 'x..y']) assert.equal(entryNameProblem(ok), undefined, ok);
    for (const bad of ['', '.', '..', 'a/b', '/x', 'a\0b']) assert.notEqual(entryNameProblem(bad), undefined, JSON.stringify(bad));
    assert.equal(entryNameProblem('sub/file.txt', true), undefined, 'a recursive listing names files below the folder');
    for (const bad of ['../x', 'a/../../b', '/abs', 'a//b', 'a/', 'a/./b']) assert.notEqual(entryNameProblem(bad, true), undefined, JSON.stringify(bad));
  });
});
