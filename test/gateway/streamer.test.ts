/**
 * The gateway's streamer program (what its streamer transfer jobs run): it takes the connection
 * bearing the job's secret and no other (401 without one, 403 with a wrong one), and it reads an
 * upload's messages as upstream's does, so the client is held to the same rules: a text `init`
 * fails the transfer, and only a text `eof` ends it (a binary one would be file content).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { WebSocket } from 'ws';

const SECRET = 'the-jobs-secret';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts the streamer in `receive` mode for `path`; resolves once it listens (on the first free port of 20, as a job would). */
async function streamer(path: string): Promise<{ url: string; child: ChildProcess; out: () => string; ended: Promise<number | null> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [resolve('dist/gateway-streamer.js'), 'server', '--host', '127.0.0.1', '--port-range', String(port), String(port + 20), '--wait-timeout', '60', 'receive', '--path', path], { env: { F7T_STREAMER_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const ended = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await new Promise<void>((ok, fail) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (/Server is listening on ws:\/\/\S+\n/.test(out)) ok();
    });
    void ended.then(() => fail(new Error(`the streamer exited: ${out}`)));
  });
  const listening = /Server is listening on (ws:\/\/\S+)/.exec(out)?.[1] ?? '';
  return { url: listening, child, out: () => out, ended };
}

/** The HTTP status a handshake is refused with, or 101. */
function handshake(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((r) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => { r(res.statusCode ?? 0); ws.terminate(); });
    ws.on('open', () => { r(101); ws.close(); });
    ws.on('error', () => undefined);
  });
}

void describe('gateway streamer program', () => {
  let dir = '';
  after(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  void it('refuses a connection without the secret or with another, then takes one with it; a binary eof is content, as upstream reads it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'f7t-streamer-'));
    const target = join(dir, 'in.bin');
    const s = await streamer(target);
    assert.equal(await handshake(s.url, {}), 401);
    assert.equal(await handshake(s.url, { authorization: 'Bearer guessed' }), 403);
    const ws = new WebSocket(s.url, { headers: { authorization: `Bearer ${SECRET}` } });
    await new Promise<void>((r, f) => { ws.on('open', () => r()); ws.on('error', f); });
    const data = Buffer.from('hello streamer');
    const eof = JSON.stringify({ type: 'eof', sha256_hash: createHash('sha256').update(data).digest('hex') });
    ws.send(Buffer.from(JSON.stringify({ type: 'init', num_chunks: 1, file_size: data.length })), { binary: true });
    ws.send(data, { binary: true });
    ws.send(Buffer.from(eof), { binary: true });
    ws.close(1000);
    assert.equal(await s.ended, 0);
    assert.equal((await readFile(target)).toString(), data.toString() + eof, s.out());
  });

  void it('a text init fails the transfer; a text eof with the right hash ends it', async () => {
    const target = join(dir, 'two.bin');
    const s = await streamer(target);
    const ws = new WebSocket(s.url, { headers: { authorization: `Bearer ${SECRET}` } });
    await new Promise<void>((r, f) => { ws.on('open', () => r()); ws.on('error', f); });
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.send(JSON.stringify({ type: 'init', num_chunks: 0, file_size: 0 }));
    assert.equal(await closed, 1011);
    await s.ended;
    await rm(target, { force: true });

    const t2 = await streamer(target);
    const ws2 = new WebSocket(t2.url, { headers: { authorization: `Bearer ${SECRET}` } });
    await new Promise<void>((r, f) => { ws2.on('open', () => r()); ws2.on('error', f); });
    const data = Buffer.from('exact');
    ws2.send(Buffer.from(JSON.stringify({ type: 'init', num_chunks: 1, file_size: data.length })), { binary: true });
    ws2.send(data, { binary: true });
    ws2.send(JSON.stringify({ type: 'eof', sha256_hash: createHash('sha256').update(data).digest('hex') }));
    assert.equal(await t2.ended, 0);
    assert.equal((await readFile(target)).toString(), 'exact');
    assert.match(t2.out(), /File received successfully\./);
  });
});
