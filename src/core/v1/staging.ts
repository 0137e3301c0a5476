/**
 * v1 external transfers (§2.6.2, §2.7.5) as the staging seam of `core/transfer`. Download:
 * `xfer-external/download`, task 116 → 117 with `data.url` (a presigned GET the shared staged
 * download then streams; the staged copy is invalidated once read). Upload: `xfer-external/upload`,
 * task 110 → 111 with a presigned form in `data.msg.parameters`, the file streamed there through
 * the client's S3 pools (its CA/TLS settings), then 112 → 113 → 114 (115 = failed); a cancelled
 * upload's task is invalidated. v1 has no multipart ticket, so the seam's one-piece `uploadWhole`
 * carries uploads.
 */
import { randomBytes } from 'node:crypto';
import { basename, posix } from 'node:path';
import type { CallOptions, TransferOptions } from '../api';
import { CancelledError, isCancellation, MalformedResponseError, messageOf, NotSupportedError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import { backoffMs } from '../http/retryAfter';
import { sleep } from '../http/sleep';
import { ProgressMeter } from '../transfer/progressMeter';
import type { S3Http } from '../transfer/s3Http';
import { isRetryable } from '../transfer/transferDeps';
import { fileSource, type UploadSource } from '../transfer/uploadSource';
import type { StagedDownloadTicket, StagedUploadTicket, StagingRoutes, WholeUpload } from '../transfer/v2Staging';
import { Tasks } from './tasks';
import { V1Http } from './v1Http';

function rec(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function scalar(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** A form field name or file name inside a quoted Content-Disposition parameter (HTML's escaping). */
const quoted = (s: string): string => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

/** A multipart/form-data body around `source`: fields first, then the file part `file`. */
function formAround(fields: Record<string, string>, name: string, source: UploadSource): { contentType: string; length: number; head: Buffer; tail: Buffer } {
  const boundary = `----firecrest-vscode-${randomBytes(12).toString('hex')}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(k)}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(name)}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const head = Buffer.from(parts.join(''), 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return { contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + source.size + tail.length, head, tail };
}

/** `StagingRoutes` of API v1, with the one-piece upload. */
export class V1Staging implements StagingRoutes {
  private readonly v1: V1Http;
  private readonly tasks: Tasks;

  /** `s3` carries the staging-area traffic (the client's pools, CA file and TLS settings). */
  constructor(http: ApiHttp, private readonly s3: S3Http) {
    this.v1 = new V1Http(http);
    this.tasks = new Tasks(this.v1);
  }

  startUpload(): Promise<StagedUploadTicket> {
    return Promise.reject(new NotSupportedError('API v1 stages uploads through one presigned form, not in parts: use wholeUpload'));
  }

  /**
   * Waits until the file is staged (117) and returns its URL. The ticket's transfer job has no
   * scheduler job (`jobId` empty): the task it names is already finished.
   */
  async startDownload(system: string, remotePath: string, o: { signal?: AbortSignal; onProgress?: TransferOptions['onProgress'] }): Promise<StagedDownloadTicket> {
    const route = '/storage/xfer-external/download';
    const res = await this.v1.send('POST', route, { machine: system, fields: { sourcePath: remotePath }, expect: [201], call: { signal: o.signal } });
    const taskId = Tasks.created(res, `POST ${route}`);
    const task = await this.tasks.wait(taskId, { signal: o.signal, onProgress: o.onProgress, until: (s) => s === 117 || s === 200 });
    // Servers <= 1.13.0 put the URL itself in `data`.
    const url = typeof task.data === 'string' ? task.data : rec(task.data).url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new MalformedResponseError(`Task ${taskId} finished without a download URL`, { route: 'GET /tasks/{id}' });
    return { transferJob: { jobId: '', system: task.system ?? system, taskId }, downloadUrl: url };
  }

  /** Invalidates the staged copy of a download that has been read. */
  async finishDownload(ticket: StagedDownloadTicket): Promise<void> {
    if (ticket.transferJob.taskId) await this.invalidate(ticket.transferJob.taskId);
  }

  /** Deletes the staged copy of a finished download. */
  async invalidate(taskId: string, o?: CallOptions): Promise<void> {
    await this.v1.send('POST', '/storage/xfer-external/invalidate', { headers: { 'x-task-id': taskId }, expect: [201], call: o });
  }

  /** Uploads a local file to `remotePath` (a directory or a file path); resolves with the task id once placed (114). */
  async upload(system: string, localPath: string, remotePath: string, o: TransferOptions = {}): Promise<string> {
    return this.send(system, basename(localPath), await fileSource(localPath), remotePath, o);
  }

  /** Every v1 upload of the staging area is one presigned form. */
  wholeUpload(): Promise<WholeUpload> {
    return Promise.resolve((system, source, remotePath, o) => this.uploadWhole(system, source, remotePath, o));
  }

  /** The seam's one-piece upload: `source` to the full target file path `remotePath`. */
  async uploadWhole(system: string, source: UploadSource, remotePath: string, o: TransferOptions = {}): Promise<void> {
    await this.send(system, posix.basename(remotePath), source, remotePath, o);
  }

  private async send(system: string, name: string, source: UploadSource, remotePath: string, o: TransferOptions): Promise<string> {
    const route = '/storage/xfer-external/upload';
    o.onProgress?.({ phase: 'staging', bytesDone: 0, bytesTotal: source.size, message: 'Requesting a staged upload' });
    const res = await this.v1.send('POST', route, { machine: system, fields: { sourcePath: name, targetPath: remotePath }, expect: [201], call: { signal: o.signal } });
    const taskId = Tasks.created(res, `POST ${route}`);
    try {
      const ready = await this.tasks.wait(taskId, { signal: o.signal, onProgress: o.onProgress, until: (s) => s >= 111 });
      if (ready.status === 111) await this.post(rec(rec(rec(ready.data).msg).parameters), name, source, taskId, o);
      await this.tasks.wait(taskId, { signal: o.signal, onProgress: o.onProgress, until: (s) => s === 114 || s === 200, overallTimeoutMs: 24 * 3600_000 });
      return taskId;
    } catch (e) {
      if (!o.signal?.aborted && !isCancellation(e)) throw e;
      throw new CancelledError(`Upload cancelled; ${await this.invalidateCancelled(taskId)}`, { cause: e });
    }
  }

  /**
   * A cancelled upload's task is invalidated so that the server stops the move to the target.
   * Whether the staged object is deleted is the server's affair (upstream 1.16.6 answers 201 but
   * deletes another key: the object stays readable until its URL expires), so nothing here says
   * it is gone. Best effort (its own short deadline, the caller's signal is aborted already):
   * says what happened, for the log.
   */
  private async invalidateCancelled(taskId: string): Promise<string> {
    try {
      await this.invalidate(taskId, { timeoutMs: 15_000 });
      return `the server accepted the invalidation of staged upload task ${taskId}`;
    } catch (e) {
      return `invalidating staged upload task ${taskId} failed (${messageOf(e)})`;
    }
  }

  /**
   * The presigned form of `parameters`, streamed: fields first, then the file part `file` (s3v4,
   * swift), or the bytes alone (s3v2 PUT). Sent again from the start when the staging area drops
   * it or answers 5xx (the form stays valid until it expires).
   */
  private async post(p: Record<string, unknown>, name: string, source: UploadSource, taskId: string, o: TransferOptions): Promise<void> {
    if (typeof p.url !== 'string') throw new MalformedResponseError(`Task ${taskId} at 111 has no upload URL in data.msg.parameters`, { route: 'GET /tasks/{id}' });
    const url = new URL(p.url);
    for (const [k, v] of Object.entries(rec(p.params))) url.searchParams.set(k, scalar(v));
    const method = (typeof p.method === 'string' ? p.method : 'POST').toUpperCase();
    if (method !== 'POST' && method !== 'PUT') throw new MalformedResponseError(`Task ${taskId} asks for an upload by ${method}`, { route: 'GET /tasks/{id}' });
    const fields = Object.fromEntries(Object.entries(rec(p.data)).map(([k, v]) => [k, scalar(v)]));
    const form = method === 'POST' ? formAround(fields, name, source) : undefined;
    const meter = new ProgressMeter(source.size, 1, o.onProgress, 'uploading');
    const attempts = 5;
    for (let attempt = 1; ; attempt++) {
      let sent = 0;
      const body = async function* (): AsyncGenerator<Uint8Array> {
        if (form) yield form.head;
        for await (const chunk of source.range(0, source.size) as AsyncIterable<Uint8Array>) {
          sent += chunk.length;
          meter.add(chunk.length);
          yield chunk;
        }
        if (form) yield form.tail;
      };
      try {
        await this.s3.sendWhole(method, url.toString(), form?.contentType ?? 'application/octet-stream', body(), form?.length ?? source.size, o.signal, `upload of ${name}`);
        meter.partDone();
        return;
      } catch (e) {
        meter.add(-sent);
        if (o.signal?.aborted) throw new CancelledError('Upload cancelled', { cause: e });
        if (isCancellation(e) || !isRetryable(e) || attempt >= attempts) throw e;
        await sleep(backoffMs(attempt - 1, 500, 8000), o.signal);
      }
    }
  }
}
