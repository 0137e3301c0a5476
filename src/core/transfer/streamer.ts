/**
 * The FirecREST streamer (firecrest-v2's `firecrest-streamer`, wire reference §3.5): the transfer
 * job runs a WebSocket server on the cluster, and the client connects to it with the job's secret
 * and moves the file itself. `coordinates` (base64url JSON) say where: every `ip` × every port of
 * `ports`, tried in turn until one answers to the secret (another transfer's server on the same
 * range refuses it, 403).
 *
 * The messages, as upstream's server reads and writes them: an `init` JSON message (`num_chunks`,
 * `file_size`) as a binary frame, the file in binary messages of 5 MiB (the last one shorter), and
 * an `eof` JSON message with the SHA-256. Upstream's receiver recognises the `eof` only as a text
 * frame spelled exactly `{"type":"eof",…` (otherwise it writes it into the file), so it goes as
 * compact text; its sender sends `eof` as a binary frame, which is told from data by the count.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { WebSocket, type MessageEvent, type CloseEvent } from 'undici';
import { z } from 'zod';
import { CancelledError, ChecksumMismatchError, MalformedResponseError, NotFoundError, PermissionDeniedError, ServerError, TooLargeError, UnavailableError } from '../errors';
import type { UploadSource } from './uploadSource';

/** Upstream's message size. */
export const STREAM_CHUNK = 5 * 1024 * 1024;
/** Ports tried per address at most: a site's range is ten or so; a server's answer is not trusted to name thousands. */
const MAX_PORTS = 256;
/** Sending waits while more than this is queued on the socket (memory stays at a few chunks). */
const HIGH_WATER = 2 * STREAM_CHUNK;

const CoordinatesW = z.object({
  secret: z.string().min(1),
  ports: z.tuple([z.number().int().min(1).max(65535), z.number().int().min(1).max(65535)]).refine(([a, b]) => a <= b, 'first port after last'),
  ips: z.array(z.string().min(1).regex(/^[^\s/?#@]+$/, 'not a host')).min(1),
  operation: z.enum(['send', 'receive']).optional(),
});

export type StreamerCoordinates = z.infer<typeof CoordinatesW>;

/** Reads the server's `coordinates`; MalformedResponseError in words when they are not usable. */
export function parseCoordinates(encoded: string, route: string): StreamerCoordinates {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new MalformedResponseError(`Malformed answer on ${route}: the streamer coordinates are not base64url JSON`, { route });
  }
  const r = CoordinatesW.safeParse(json);
  if (!r.success) throw new MalformedResponseError(`Malformed answer on ${route}: the streamer coordinates lack a secret, a port range or an address (${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`, { route });
  return r.data;
}

/** The addresses to try, in upstream's order (each ip, each port of the range). */
export function endpointsOf(c: StreamerCoordinates): string[] {
  const last = Math.min(c.ports[1], c.ports[0] + MAX_PORTS - 1);
  const hosts = c.ips.map((ip) => (ip.includes(':') && !ip.startsWith('[') ? `[${ip}]` : ip));
  return hosts.flatMap((h) => Array.from({ length: last - c.ports[0] + 1 }, (_, i) => `ws://${h}:${c.ports[0] + i}`));
}

/** One open connection with its messages queued, so none is lost between two awaits. */
export class StreamChannel {
  private readonly queue: (Buffer | string)[] = [];
  private waiter?: () => void;
  closed?: { code: number; reason: string };

  constructor(readonly ws: WebSocket) {
    ws.addEventListener('message', (ev: MessageEvent) => {
      this.queue.push(typeof ev.data === 'string' ? ev.data : Buffer.from(ev.data as ArrayBuffer));
      this.wake();
    });
    ws.addEventListener('close', (ev: CloseEvent) => {
      this.closed = { code: ev.code, reason: ev.reason };
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** The next message, or undefined once the connection closed with nothing left. */
  async next(signal?: AbortSignal): Promise<Buffer | string | undefined> {
    for (;;) {
      if (this.queue.length > 0) return this.queue.shift();
      if (this.closed) return undefined;
      if (signal?.aborted) throw new CancelledError('Transfer cancelled');
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.waiter = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Resolves once the server closed the connection (or after `ms`, then closing it here). */
  async closedByServer(ms: number): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.ws.addEventListener('close', () => { clearTimeout(t); resolve(); }, { once: true });
    });
    if (!this.closed) this.ws.close(1000);
  }
}

/** Opens `url` with the secret; rejects when nothing listens there or the server refuses the secret. */
function openOne(url: string, secret: string, signal?: AbortSignal): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${secret}` } });
    ws.binaryType = 'arraybuffer';
    const onAbort = (): void => ws.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (ok: boolean): void => {
      signal?.removeEventListener('abort', onAbort);
      if (ok) resolve(ws);
      else reject(signal?.aborted ? new CancelledError('Transfer cancelled') : new UnavailableError(`nothing accepted the transfer at ${url}`));
    };
    ws.addEventListener('open', () => done(true), { once: true });
    ws.addEventListener('close', () => done(false), { once: true });
  });
}

/**
 * The first endpoint that takes the secret, as a channel; UnavailableError when none does (the
 * job is not listening yet, or has stopped).
 */
export async function connectStreamer(c: StreamerCoordinates, signal?: AbortSignal): Promise<StreamChannel> {
  const urls = endpointsOf(c);
  for (const url of urls) {
    try {
      const ws = await openOne(url, c.secret, signal);
      return new StreamChannel(ws);
    } catch (e) {
      if (e instanceof CancelledError) throw e;
    }
  }
  throw new UnavailableError(`No streamer accepted the transfer at ${c.ips.join(', ')} on ports ${c.ports[0]}–${c.ports[1]}`);
}

/** What a closed connection means, in the words of upstream's close codes. */
function closedEarly(ch: StreamChannel, what: string): Error {
  const c = ch.closed;
  const said = c?.reason ? (json(c.reason) as { error?: unknown } | undefined)?.error : undefined;
  const detail = typeof said === 'string' ? said : c?.reason ?? '';
  if (c?.code === 1009) return new TooLargeError(`The streamer refused the ${what}: ${c.reason || 'inbound transfer limit exceeded'}`);
  if (c?.code === 3003 && detail === 'FileNotFoundError') return new NotFoundError(`The streamer could not find the file of the ${what}`);
  if (c?.code === 3003) return new PermissionDeniedError(`The streamer refused the ${what} (${detail || 'the target exists'})`);
  return new ServerError(`The streamer closed the connection before the ${what} ended${c ? ` (code ${c.code}${detail ? `: ${detail}` : ''})` : ''}`);
}

async function drained(ws: WebSocket, signal?: AbortSignal): Promise<void> {
  // undici's WebSocket says how much is queued but not when it shrinks: look again shortly.
  while (ws.bufferedAmount > HIGH_WATER && ws.readyState === WebSocket.OPEN) {
    if (signal?.aborted) throw new CancelledError('Upload cancelled');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Sends `source` over `ch` (the server receives). Resolves with the SHA-256 once the server has the
 * `eof` and closed the connection. `onBytes` counts bytes handed to the socket.
 */
export async function streamSend(ch: StreamChannel, source: UploadSource, o: { signal?: AbortSignal; onBytes?: (n: number) => void } = {}): Promise<string> {
  const { ws } = ch;
  const chunks = Math.ceil(source.size / STREAM_CHUNK);
  const hash = createHash('sha256');
  try {
    ws.send(Buffer.from(JSON.stringify({ type: 'init', num_chunks: chunks, file_size: source.size }), 'utf8'));
    for (let i = 0; i < chunks; i++) {
      const start = i * STREAM_CHUNK;
      const end = Math.min(source.size, start + STREAM_CHUNK);
      // One fresh buffer per message: the source's chunks are reused buffers.
      const msg = Buffer.allocUnsafe(end - start);
      let at = 0;
      for await (const c of source.chunks(start, end)) {
        msg.set(c, at);
        at += c.length;
      }
      if (ch.closed) throw closedEarly(ch, 'upload');
      hash.update(msg);
      ws.send(msg);
      o.onBytes?.(msg.length);
      await drained(ws, o.signal);
    }
    const sha256 = hash.digest('hex');
    if (ch.closed) throw closedEarly(ch, 'upload');
    ws.send(JSON.stringify({ type: 'eof', sha256_hash: sha256 }));
    // The server checks the hash and then stops; its job's log and the checksum say the rest.
    await ch.closedByServer(60_000);
    return sha256;
  } catch (e) {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    if (o.signal?.aborted) throw new CancelledError('Upload cancelled', { cause: e });
    throw e;
  }
}

const InitW = z.object({ type: z.literal('init'), num_chunks: z.number().int().min(0), file_size: z.number().int().min(0) });
const EofW = z.object({ type: z.literal('eof'), sha256_hash: z.string().regex(/^[0-9a-fA-F]{64}$/) });

function json(m: Buffer | string): unknown {
  try {
    return JSON.parse(typeof m === 'string' ? m : m.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Receives the file the server sends over `ch` into `path` (created or truncated). Resolves with
 * its size and SHA-256 once the `eof` came and its hash matched; rejects otherwise.
 */
export async function streamReceive(ch: StreamChannel, path: string, o: { signal?: AbortSignal; onStart?: (size: number) => void; onBytes?: (n: number) => void } = {}): Promise<{ bytes: number; sha256: string }> {
  const file = await open(path, 'w');
  try {
    const first = await ch.next(o.signal);
    if (first === undefined) throw closedEarly(ch, 'download');
    const init = InitW.safeParse(json(first));
    if (!init.success) throw new MalformedResponseError('The streamer did not begin with its init message');
    const { num_chunks: count, file_size: size } = init.data;
    o.onStart?.(size);
    const hash = createHash('sha256');
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const m = await ch.next(o.signal);
      if (m === undefined) throw closedEarly(ch, 'download');
      if (typeof m === 'string') {
        const err = json(m) as { type?: string; error?: string } | undefined;
        throw new ServerError(`The streamer failed: ${err?.type === 'error' ? String(err.error) : 'an unexpected text message'}`);
      }
      if (bytes + m.length > size) throw new MalformedResponseError(`The streamer sent more than the ${size} bytes it announced`);
      hash.update(m);
      await file.write(m);
      bytes += m.length;
      o.onBytes?.(m.length);
    }
    const last = await ch.next(o.signal);
    if (last === undefined) throw closedEarly(ch, 'download');
    const eof = EofW.safeParse(json(last));
    if (!eof.success) throw new MalformedResponseError('The streamer did not end with its eof message');
    if (bytes !== size) throw new MalformedResponseError(`The streamer sent ${bytes} of the ${size} bytes it announced`);
    const sha256 = hash.digest('hex');
    if (sha256 !== eof.data.sha256_hash.toLowerCase()) throw new ChecksumMismatchError(`The streamed download arrived corrupted: local SHA-256 ${sha256}, the streamer's ${eof.data.sha256_hash}`, sha256, eof.data.sha256_hash);
    return { bytes, sha256 };
  } catch (e) {
    if (o.signal?.aborted) throw new CancelledError('Download cancelled', { cause: e });
    throw e;
  } finally {
    await file.close();
    if (ch.ws.readyState === WebSocket.OPEN) ch.ws.close(1000);
  }
}
