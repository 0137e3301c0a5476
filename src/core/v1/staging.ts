/**
 * v1 external transfers (§2.6.2, §2.7.5) as the staging seam of `core/transfer`. Download:
 * `xfer-external/download`, task 116 → 117 with `data.url` (a presigned GET the shared staged
 * download then streams). Upload: `xfer-external/upload`, task 110 → 111 with a presigned POST
 * form in `data.msg.parameters`, the file posted there, then 112 → 113 → 114 (115 = failed).
 * The multipart-parts ticket of the seam does not fit v1's one-form upload, so uploads have their
 * own entry point (`upload`), reached through `V1Extras.externalUpload`.
 */
import { openAsBlob } from 'node:fs';
import { basename, posix } from 'node:path';
import { FormData, fetch } from 'undici';
import type { CallOptions, TransferOptions } from '../api';
import { CancelledError, MalformedResponseError, NotSupportedError, ServerError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import type { UploadSource } from '../transfer/uploadSource';
import type { StagedDownloadTicket, StagedUploadTicket, StagingRoutes } from '../transfer/v2Staging';
import { Tasks } from './tasks';
import { V1Http } from './v1Http';

function rec(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function scalar(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** `StagingRoutes` of API v1, plus the v1 upload flow. */
export class V1Staging implements StagingRoutes {
  private readonly v1: V1Http;
  private readonly tasks: Tasks;

  constructor(http: ApiHttp) {
    this.v1 = new V1Http(http);
    this.tasks = new Tasks(this.v1);
  }

  startUpload(): Promise<StagedUploadTicket> {
    return Promise.reject(new NotSupportedError('API v1 stages uploads through one presigned form, not in parts: use externalUpload'));
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

  /** Deletes the staged copy of a finished download. */
  async invalidate(taskId: string, o?: CallOptions): Promise<void> {
    await this.v1.send('POST', '/storage/xfer-external/invalidate', { headers: { 'x-task-id': taskId }, expect: [201], call: o });
  }

  /** Uploads a local file to `remotePath` (a directory or a file path); resolves with the task id once placed (114). */
  upload(system: string, localPath: string, remotePath: string, o: TransferOptions = {}): Promise<string> {
    return this.send(system, basename(localPath), () => openAsBlob(localPath), remotePath, o);
  }

  /**
   * The staged-upload entry point for `core/transfer` (an `UploadSource` to the full target file
   * path), for when the seam learns a one-shot upload next to its multipart one.
   */
  uploadSource(system: string, source: UploadSource, remotePath: string, o: TransferOptions = {}): Promise<string> {
    const blob = async (): Promise<Blob> => {
      if (source.identity.path) return openAsBlob(source.identity.path);
      const chunks: Uint8Array[] = [];
      for await (const c of source.range(0, source.size)) chunks.push(c);
      return new Blob(chunks);
    };
    return this.send(system, posix.basename(remotePath), blob, remotePath, o);
  }

  private async send(system: string, name: string, blob: () => Promise<Blob>, remotePath: string, o: TransferOptions): Promise<string> {
    const route = '/storage/xfer-external/upload';
    const res = await this.v1.send('POST', route, { machine: system, fields: { sourcePath: name, targetPath: remotePath }, expect: [201], call: { signal: o.signal } });
    const taskId = Tasks.created(res, `POST ${route}`);
    const ready = await this.tasks.wait(taskId, { signal: o.signal, onProgress: o.onProgress, until: (s) => s >= 111 });
    const p = rec(rec(rec(ready.data).msg).parameters);
    if (ready.status === 111) await this.post(p, name, await blob(), taskId, o);
    await this.tasks.wait(taskId, { signal: o.signal, onProgress: o.onProgress, until: (s) => s === 114 || s === 200, overallTimeoutMs: 24 * 3600_000 });
    return taskId;
  }

  /** The presigned form of `parameters`: fields first, then the file part `file` (s3v4, swift) or a raw PUT (s3v2). */
  private async post(p: Record<string, unknown>, name: string, blob: Blob, taskId: string, o: TransferOptions): Promise<void> {
    if (typeof p.url !== 'string') throw new MalformedResponseError(`Task ${taskId} at 111 has no upload URL in data.msg.parameters`, { route: 'GET /tasks/{id}' });
    const url = new URL(p.url);
    for (const [k, v] of Object.entries(rec(p.params))) url.searchParams.set(k, scalar(v));
    o.onProgress?.({ phase: 'uploading', bytesDone: 0, bytesTotal: blob.size });
    const method = (typeof p.method === 'string' ? p.method : 'POST').toUpperCase();
    let body: FormData | Blob = blob;
    if (method === 'POST') {
      const form = new FormData();
      for (const [k, v] of Object.entries(rec(p.data))) form.append(k, scalar(v));
      form.append('file', blob, name);
      body = form;
    }
    let answer;
    try {
      answer = await fetch(url, { method, body, signal: o.signal });
    } catch (e) {
      if (o.signal?.aborted) throw new CancelledError();
      throw new ServerError(`Upload to the staging area failed: ${(e as Error).message}`, { cause: e });
    }
    const text = await answer.text();
    if (answer.status >= 300) throw new ServerError(`The staging area refused the upload (HTTP ${answer.status}): ${text.replace(/\s+/g, ' ').slice(0, 200)}`, { status: answer.status });
    o.onProgress?.({ phase: 'uploading', bytesDone: blob.size, bytesTotal: blob.size });
  }
}
