/**
 * HTTP to the staging area (S3 presigned URLs): its own keep-alive undici pools, sized for parallel
 * parts, and no FirecREST token ever (the presigned query is the authorisation). Bodies stream in
 * both directions. Logs and errors name `origin/path` only: a presigned query is a credential.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { CancelledError, FirecrestError, InvalidInputError, NotFoundError, PermissionDeniedError, S3Error, UnavailableError } from '../errors';
import type { Logger } from '../logger';

/** A URL fit for a log line: the query (signature, credential) is cut off. */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?…`;
}

// In errors.ts with the other typed errors: the extension tests it outside the client's bundle.
export { S3Error } from '../errors';

export interface S3HttpOptions {
  logger: Logger;
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  /** Connections per origin (default 10, the official client's MAX_S3_CONNECTIONS). */
  connections?: number;
  userAgent?: string;
}

function typed(status: number, text: string, what: string): FirecrestError {
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const msg = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
  const message = `${what}: the staging area answered ${status}${code ? ` ${code}` : ''}${msg ? ` (${msg})` : ''}`;
  if (status >= 500 || status === 429) return new S3Error(message, true, code, { status });
  if (status === 403) return new PermissionDeniedError(message, { status });
  if (status === 404) return new NotFoundError(message, { status });
  return new InvalidInputError(message, { status });
}

/** Streaming S3 requests of one client. */
export class S3Http {
  private readonly pools = new Map<string, Pool>();
  private readonly ca?: string[];
  private closed = false;

  constructor(private readonly opts: S3HttpOptions) {
    if (opts.caFile) this.ca = [...rootCertificates, readFileSync(opts.caFile, 'utf8')];
  }

  private pool(origin: string): Pool {
    if (this.closed) throw new UnavailableError('The client was disposed');
    let p = this.pools.get(origin);
    if (!p) {
      const connect = origin.startsWith('https:') ? { ca: this.ca, rejectUnauthorized: !this.opts.insecureSkipTlsVerify } : undefined;
      // No header deadline: S3 answers a part only once its whole body arrived. A stalled body is
      // caught by the body timeout (no byte for 2 minutes).
      p = new Pool(origin, { connections: this.opts.connections ?? 10, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 120_000, connect });
      this.pools.set(origin, p);
    }
    return p;
  }

  private async send(method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, body: Readable | AsyncIterable<Uint8Array> | string | undefined, signal: AbortSignal | undefined, what: string) {
    if (signal?.aborted) throw new CancelledError();
    const u = new URL(url);
    const started = performance.now();
    try {
      const res = await this.pool(u.origin).request({
        method,
        path: `${u.pathname}${u.search}`,
        headers: { 'user-agent': this.opts.userAgent ?? 'firecrest-vscode', ...headers },
        // undici takes an async iterable body (its runtime check says so) though its types omit it.
        body: body as Readable | string | undefined,
        signal,
        // Fewer, larger chunks: a GiB download is hashed and written chunk by chunk.
        highWaterMark: 1 << 20,
      });
      this.opts.logger.debug(`S3 ${method} ${safeUrl(url)} ${res.statusCode} ${Math.round(performance.now() - started)}ms (${what})`);
      return res;
    } catch (e) {
      if (signal?.aborted) throw new CancelledError('Cancelled', { cause: e });
      const err = e as { code?: string; message?: string };
      this.opts.logger.debug(`S3 ${method} ${safeUrl(url)} failed: ${err.code ?? err.message ?? 'error'} (${what})`);
      throw new S3Error(`${what}: ${err.code ?? ''} ${err.message ?? String(e)}`.trim(), !/CERT|TLS|SSL/.test(err.code ?? ''), undefined, { cause: e });
    }
  }

  /**
   * PUTs one part (`length` bytes from `body`); resolves the ETag header verbatim. An iterable body
   * goes to undici as it is (undici asks for the next chunk once the socket took the last one: see
   * `UploadSource.chunks`); it is ended (`return()`, which closes its file) when the request is over.
   */
  async putPart(url: string, body: AsyncGenerator<Uint8Array, void, undefined>, length: number, signal: AbortSignal | undefined, what: string): Promise<string> {
    let res;
    try {
      res = await this.send('PUT', url, { 'content-length': String(length), 'content-type': 'application/octet-stream' }, body, signal, what);
    } finally {
      // A refused or dropped part leaves its reader open: close the file now, not at GC.
      await body.return(undefined).catch(() => undefined);
    }
    const text = await res.body.text();
    if (res.statusCode >= 300) throw typed(res.statusCode, text, what);
    const etag = res.headers.etag;
    if (typeof etag !== 'string' || !etag) throw new S3Error(`${what}: the staging area answered without an ETag`, true);
    return etag;
  }

  /**
   * Sends one whole streamed body of `length` bytes (API v1's presigned form POST, or its s3v2
   * PUT); resolves the answer's text.
   */
  async sendWhole(method: 'PUT' | 'POST', url: string, contentType: string, body: AsyncIterable<Uint8Array>, length: number, signal: AbortSignal | undefined, what: string): Promise<string> {
    const stream = Readable.from(body, { objectMode: false });
    let res;
    try {
      res = await this.send(method, url, { 'content-length': String(length), 'content-type': contentType }, stream, signal, what);
    } finally {
      if (!stream.readableEnded) stream.destroy();
    }
    const text = await res.body.text();
    if (res.statusCode >= 300) throw typed(res.statusCode, text, what);
    return text;
  }

  /** POSTs a small document (CompleteMultipartUpload); resolves the answer's text. */
  async post(url: string, xml: string, signal: AbortSignal | undefined, what: string): Promise<string> {
    const res = await this.send('POST', url, { 'content-type': 'application/xml' }, xml, signal, what);
    const text = await res.body.text();
    if (res.statusCode >= 300) throw typed(res.statusCode, text, what);
    // S3 may answer 200 with an <Error> document when completion fails late.
    if (/<Error>/.test(text)) throw typed(500, text, what);
    return text;
  }

  /** Starts a GET from byte `from`; resolves the status, headers and body stream (200 or 206). */
  async get(url: string, from: number, signal: AbortSignal | undefined, what: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Readable }> {
    const res = await this.send('GET', url, from > 0 ? { range: `bytes=${from}-` } : {}, undefined, signal, what);
    if (res.statusCode !== 200 && res.statusCode !== 206) throw typed(res.statusCode, await res.body.text(), what);
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  /** Closes every pool. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
