/**
 * The gateway's stand-in for upstream's `streamer server` (PyPI `firecrest-streamer`, run by the
 * transfer job of a site configured with the `streamer` method): a WebSocket server on the first
 * free port of a range that takes one connection bearing the job's secret and then receives a file
 * into `--path` or sends it from there. It runs as the job's user, like the real one.
 *
 * It does what upstream's does, quirks included, so that the client is tested against them:
 * - the `init` message is read as bytes (a text `init` fails the transfer);
 * - the `eof` of an upload is recognised only as a text message beginning `{"type":"eof"`; any
 *   other message is file content (upstream writes a binary `eof` into the file);
 * - a download's `init` and `eof` go as binary JSON in Python's spelling (`{"type": "eof", …}`);
 * - an upload refuses a target that exists (close 3003), counts every message as 5 MiB against
 *   the inbound limit (close 1009), and removes the file when the hash does not match;
 * - after one connection, or after `--wait-timeout` seconds without one, the server stops.
 * One difference: the secret comes from the environment (`F7T_STREAMER_SECRET`), never the command
 * line, where every user of the node could read it.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { open, rm, stat } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

const CHUNK = 5 * 1024 * 1024;

interface Options {
  operation: 'receive' | 'send';
  path: string;
  secret: string;
  host: string;
  ports: [number, number];
  waitTimeoutSeconds: number;
  inboundLimit: number;
}

function parse(argv: string[]): Options {
  const o: Partial<Options> = { host: 'localhost', ports: [5665, 5670], waitTimeoutSeconds: 86400, inboundLimit: 5 * 1024 ** 3 };
  if (argv[0] !== 'server') throw new Error('usage: streamer server [--host H] [--port-range A B] [--wait-timeout S] [--inbound-transfer-limit B] receive|send --path P');
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--host') o.host = argv[++i];
    else if (a === '--port-range') o.ports = [Number(argv[++i]), Number(argv[++i])];
    else if (a === '--wait-timeout') o.waitTimeoutSeconds = Number(argv[++i]);
    else if (a === '--inbound-transfer-limit') o.inboundLimit = Number(argv[++i]);
    else if (a === 'receive' || a === 'send') o.operation = a;
    else if (a === '--path') o.path = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  const secret = process.env.F7T_STREAMER_SECRET;
  if (!o.operation || !o.path || !secret) throw new Error('an operation, --path and F7T_STREAMER_SECRET are required');
  return { ...(o as Options), secret };
}

const log = (m: string): void => void process.stdout.write(`${m}\n`);
const closeWith = (ws: WebSocket, code: number, error: string): void => ws.close(code, JSON.stringify({ type: 'error', error }));

/** A connection's messages, queued from the moment it opens (the client may send at once). */
class Inbox {
  private readonly messages: { data: Buffer; binary: boolean }[] = [];
  private wake?: () => void;
  private closed = false;

  constructor(ws: WebSocket) {
    ws.on('message', (data: RawData, binary: boolean) => {
      this.messages.push({ data: Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]), binary });
      this.wake?.();
    });
    ws.on('close', () => { this.closed = true; this.wake?.(); });
  }

  /** The next message; undefined once the connection closed with nothing left. */
  async next(): Promise<{ data: Buffer; binary: boolean } | undefined> {
    while (this.messages.length === 0 && !this.closed) await new Promise<void>((r) => { this.wake = r; });
    this.wake = undefined;
    return this.messages.shift();
  }
}

/** Upstream's `stream_receive`: into a new file, `eof` as text only. */
async function receive(ws: WebSocket, inbox: Inbox, o: Options): Promise<void> {
  let file;
  try {
    file = await open(o.path, 'wx');
  } catch {
    log(`File ${o.path} already exists. Transfer aborted.`);
    closeWith(ws, 3003, 'FileNotFoundError');
    return;
  }
  const hash = createHash('sha256');
  let init: { file_size?: number } | undefined;
  let counted = 0;
  try {
    for (;;) {
      const m = await inbox.next();
      if (!m) break;
      const { data: buf, binary } = m;
      if (init === undefined) {
        // Python's `message.decode(...)`: a text frame has no decode.
        if (!binary) throw Object.assign(new Error("'str' object has no attribute 'decode'"), { name: 'AttributeError' });
        init = JSON.parse(buf.toString('utf8')) as { file_size?: number };
        log(`Transfering ${init.file_size ?? '?'} bytes...`);
        continue;
      }
      const text = binary ? undefined : buf.toString('utf8');
      if (text?.startsWith('{"type":"error"')) {
        log(`A remote error occurred: ${String((JSON.parse(text) as { error?: unknown }).error)}`);
        break;
      }
      if (text?.startsWith('{"type":"eof"')) {
        if (hash.digest('hex') !== (JSON.parse(text) as { sha256_hash?: string }).sha256_hash) {
          log('Hash mismatch! File transfer corrupted.');
          await file.close();
          file = undefined;
          await rm(o.path, { force: true });
        } else {
          log('File received successfully.');
        }
        break;
      }
      counted += CHUNK;
      if (counted > o.inboundLimit) {
        log(`Inbound transfer limit exceeded, max allowed transfer size: ${o.inboundLimit} bytes Aborting transfer.`);
        ws.close(1009, `Inbound transfer limit exceeded, max allowed transfer size: ${o.inboundLimit} bytes.`);
        await file.close();
        file = undefined;
        await rm(o.path, { force: true });
        return;
      }
      await file.write(buf);
      hash.update(buf);
    }
    log(`File ${o.path} received successfully.`);
  } catch (e) {
    log(`An error occurred: ${e instanceof Error ? e.message : String(e)}.`);
    closeWith(ws, 1011, e instanceof Error ? e.name : 'Error');
  } finally {
    await file?.close();
  }
}

/** Upstream's `stream_send`: binary JSON around 5 MiB binary messages. */
async function send(ws: WebSocket, o: Options): Promise<void> {
  const sendNow = (data: Buffer): Promise<void> => new Promise((resolve, reject) => ws.send(data, { binary: true }, (e) => (e ? reject(e) : resolve())));
  let file;
  try {
    file = await open(o.path, 'r');
  } catch {
    log(`File ${o.path} not found. Aborting transfer.`);
    closeWith(ws, 3003, 'FileNotFoundError');
    return;
  }
  try {
    const size = (await stat(o.path)).size;
    const chunks = Math.ceil(size / CHUNK);
    const hash = createHash('sha256');
    await sendNow(Buffer.from(JSON.stringify({ type: 'init', num_chunks: chunks, file_size: size }).replace(/":/g, '": ').replace(/,"/g, ', "')));
    log(`Transfering ${size} bytes...`);
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = Buffer.from(buf.subarray(0, bytesRead));
      hash.update(chunk);
      await sendNow(chunk);
    }
    await sendNow(Buffer.from(`{"type": "eof", "sha256_hash": "${hash.digest('hex')}"}`));
    log(`File ${o.path} sent successfully.`);
  } catch (e) {
    log(`An error occurred: ${e instanceof Error ? e.message : String(e)}`);
    closeWith(ws, 1011, e instanceof Error ? e.name : 'Error');
  } finally {
    await file.close();
  }
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const wss = new WebSocketServer({ noServer: true, maxPayload: Math.floor(CHUNK * 1.25) });
  const server = createServer((_req, res) => res.writeHead(426).end('Upgrade Required\n'));
  let timer: NodeJS.Timeout | undefined;
  let taken = false;
  const stop = (): void => {
    clearTimeout(timer);
    server.close();
    for (const c of wss.clients) c.close(1001);
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${text}\n`);
    };
    const auth = req.headers.authorization;
    if (auth === undefined) return refuse(401, 'Missing Authorization header');
    if (auth.split('Bearer ').at(-1) !== o.secret) return refuse(403, 'Invalid secret');
    if (taken) return refuse(409, 'Transfer already taken');
    taken = true;
    clearTimeout(timer);
    wss.handleUpgrade(req, socket, head, (ws) => {
      log('Client connected.');
      const inbox = new Inbox(ws);
      void (o.operation === 'receive' ? receive(ws, inbox, o) : send(ws, o)).finally(stop);
    });
  });
  for (let port = o.ports[0]; port <= o.ports[1]; port++) {
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, o.host, () => resolve(true));
    });
    if (!bound) {
      log(`Server unable to bing on port: ${port}`);
      continue;
    }
    log(`Server is listening on ws://${o.host}:${port}`);
    timer = setTimeout(stop, o.waitTimeoutSeconds * 1000);
    process.on('SIGTERM', stop);
    await new Promise<void>((resolve) => server.on('close', () => resolve()));
    return;
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
