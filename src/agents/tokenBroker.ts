/**
 * Access tokens for the MCP servers this window starts, so that no secret leaves the extension:
 * a server gets a socket (in a folder only this user can open) and a one-time key that stands for
 * one connection; its token helper asks here, and gets an access token of that connection's one
 * client (refreshed by the client as always). A wrong key gets nothing. The socket closes with the
 * window.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { messageOf } from '../core/errors';
import type { ConnectionService, Log } from '../common/services';

/** Keys kept at once (each server start mints one). */
const MAX_KEYS = 64;
const MAX_REQUEST_BYTES = 4096;

export class TokenBroker implements vscode.Disposable {
  private server: Promise<{ server: Server; path: string; dir?: string }> | undefined;
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly connections: ConnectionService,
    private readonly log: Log,
  ) {}

  /** A socket and a key that yields tokens of `connection` only. */
  async mint(connection: string): Promise<{ socket: string; key: string }> {
    const { path } = await (this.server ??= this.listen());
    const key = randomBytes(32).toString('base64url');
    this.keys.set(key, connection);
    while (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    return { socket: path, key };
  }

  private async listen(): Promise<{ server: Server; path: string; dir?: string }> {
    const windows = process.platform === 'win32';
    const dir = windows ? undefined : await mkdtemp(join(tmpdir(), 'f7t-broker-'));
    const path = dir ? join(dir, 'broker.sock') : `\\\\.\\pipe\\f7t-broker-${randomBytes(16).toString('hex')}`;
    const server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    this.log.debug(`token broker listening (${windows ? 'named pipe' : 'socket in a private folder'})`);
    return { server, path, dir };
  }

  private connectionOf(key: string): string | undefined {
    const given = Buffer.from(key);
    for (const [k, name] of this.keys) {
      const known = Buffer.from(k);
      if (known.length === given.length && timingSafeEqual(known, given)) return name;
    }
    return undefined;
  }

  private serve(socket: Socket): void {
    let request = '';
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      request += d.toString('utf8');
      if (request.length > MAX_REQUEST_BYTES) socket.destroy();
      else if (request.includes('\n')) void this.answer(socket, request.slice(0, request.indexOf('\n')));
    });
  }

  private async answer(socket: Socket, line: string): Promise<void> {
    socket.removeAllListeners('data');
    let key: unknown;
    try {
      key = (JSON.parse(line) as { key?: unknown }).key;
    } catch {
      key = undefined;
    }
    const name = typeof key === 'string' ? this.connectionOf(key) : undefined;
    if (!name) {
      this.log.warn('token broker: a request with an unknown key was refused');
      socket.end(JSON.stringify({ error: 'unknown key: restart the MCP server from VS Code' }));
      return;
    }
    try {
      const token = await (await this.connections.client(name)).accessToken();
      socket.end(JSON.stringify({ token }));
    } catch (e) {
      socket.end(JSON.stringify({ error: `${name}: ${messageOf(e)}` }));
    }
  }

  dispose(): void {
    const started = this.server;
    this.server = undefined;
    this.keys.clear();
    void started?.then(({ server, dir }) => {
      server.close();
      if (dir) void rm(dir, { recursive: true, force: true });
    }).catch(() => undefined);
  }
}
