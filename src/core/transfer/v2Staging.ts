/**
 * Requesting staged transfers from a v2 server (§3.5): `transfer/upload` and `transfer/download`
 * with S3 directives. Reads the key spellings of every server generation (camelCase since 2.5.0,
 * snake_case before, and the top-level fallbacks the official client accepts).
 */
import { z } from 'zod';
import type { FirecrestApi, TransferOptions } from '../api';
import { MalformedResponseError, messageOf, NotSupportedError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import type { TransferJob } from '../model';
import { OpsRoutes } from '../v2/ops';
import { StatusRoutes } from '../v2/status';
import { parseBody } from '../v2/parse';
import { hasWhitespace, plainAlias } from '../v2/plainAlias';
import { TransferJobW } from '../v2/wire';
import type { UploadSource } from './uploadSource';
import { V2Streamer } from './v2Streamer';

/** A staged upload the server opened: where the parts go and the job that takes the file over. */
export interface StagedUploadTicket {
  transferJob: TransferJob;
  partsUploadUrls: string[];
  completeUploadUrl: string;
  partSize: number;
}

/** A staged download: the job that stages the file and the URL it will be served from. */
export interface StagedDownloadTicket {
  transferJob: TransferJob;
  downloadUrl: string;
  /** Removes what the request needed on the cluster until the staging job ended (a temporary symlink). */
  release?(): Promise<void>;
}

/** A large upload in one piece: `source` to the full target path `remotePath`, in place when it resolves. */
export type WholeUpload = (system: string, source: UploadSource, remotePath: string, o: TransferOptions) => Promise<void>;
/** A large download in one piece into the local file `temp`: its size and SHA-256 as received. */
export type WholeDownload = (system: string, remotePath: string, temp: string, o: TransferOptions) => Promise<{ bytes: number; sha256: string }>;

/** How staged transfers are requested from one API generation (v2 transfer/*, v1 xfer-external). */
export interface StagingRoutes {
  startUpload(system: string, remotePath: string, fileSize: number, o: { account?: string; signal?: AbortSignal }): Promise<StagedUploadTicket>;
  startDownload(system: string, remotePath: string, o: { account?: string; signal?: AbortSignal }): Promise<StagedDownloadTicket>;
  /**
   * How `system` takes a large upload when it is not the multipart flow (API v1: one presigned
   * form; a v2 site with the streamer method): the function that carries it, resolving once the
   * file is in place (no parts, no resume). Undefined: the multipart flow.
   */
  wholeUpload?(system: string, signal?: AbortSignal): Promise<WholeUpload | undefined>;
  /**
   * How `system` gives a large download when it is not a presigned URL (a v2 site with the
   * streamer method): the function that fills `temp`. Undefined: the URL flow.
   */
  wholeDownload?(system: string, signal?: AbortSignal): Promise<WholeDownload | undefined>;
  /** Drops the staged copy once a download has been read (v1 `invalidate`); failures are the caller's to ignore. */
  finishDownload?(ticket: StagedDownloadTicket): Promise<void>;
}

const Loose = z.record(z.string(), z.unknown());

function pick<T>(sources: Record<string, unknown>[], keys: string[], check: (v: unknown) => v is T): T | undefined {
  for (const s of sources) for (const k of keys) if (check(s[k])) return s[k];
  return undefined;
}

function directivesOf(body: Record<string, unknown>): Record<string, unknown> {
  const d = body.transferDirectives ?? body.transfer_directives;
  return typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isStrArray = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every(isStr);

function transferJobOf(res: Parameters<typeof parseBody>[1], route: string): TransferJob {
  const t = parseBody(TransferJobW, res, route).transferJob;
  return { jobId: t.jobId, system: t.system, workingDirectory: t.workingDirectory ?? undefined, outputLog: t.logs?.outputLog ?? undefined, errorLog: t.logs?.errorLog ?? undefined };
}

/** The staged transfer methods this client speaks. */
const SPOKEN = ['s3', 'streamer'];

/** `StagingRoutes` of API v2 with the S3 transfer method. */
export class V2Staging implements StagingRoutes {
  /** Each system's advertised method (`data_transfer.serviceType`), asked for once. */
  private methods?: Promise<Map<string, string | undefined>>;

  private readonly streamer: V2Streamer;

  /** `api`: the client the streamer's jobs are waited for, moved and cancelled through. */
  constructor(private readonly http: ApiHttp, api: () => FirecrestApi) {
    this.streamer = new V2Streamer(http, api);
  }

  /** The method `system` advertises (`data_transfer.serviceType`), undefined when it does not say. */
  private async method(system: string, signal?: AbortSignal): Promise<string | undefined> {
    this.methods ??= new StatusRoutes(this.http).systems({ signal }).then((list) => new Map(list.map((x) => [x.name, x.transferMethod])));
    this.methods.catch(() => { this.methods = undefined; });
    return (await this.methods.catch(() => undefined))?.get(system);
  }

  /** A streamer site's large uploads go in one piece over the streamer. */
  async wholeUpload(system: string, signal?: AbortSignal): Promise<WholeUpload | undefined> {
    return (await this.method(system, signal)) === 'streamer' ? this.streamer.upload : undefined;
  }

  async wholeDownload(system: string, signal?: AbortSignal): Promise<WholeDownload | undefined> {
    return (await this.method(system, signal)) === 'streamer' ? this.streamer.download : undefined;
  }

  /**
   * Refuses in words, before anything is requested, a staged transfer on a system whose site moves
   * large files by a method this client does not speak (`streamer`, `wormhole`).
   */
  private async checkMethod(system: string, direction: 'upload' | 'download', signal?: AbortSignal): Promise<void> {
    const method = await this.method(system, signal);
    if (method === undefined || SPOKEN.includes(method)) return;
    throw new NotSupportedError(`${system} moves files above its direct-transfer limit with the "${method}" method, which this extension does not speak yet (it speaks ${SPOKEN.join(' and ')}): this ${direction} is too large to go directly. Smaller files move as usual.`);
  }

  async startUpload(system: string, remotePath: string, fileSize: number, o: { account?: string; signal?: AbortSignal }): Promise<StagedUploadTicket> {
    await this.checkMethod(system, 'upload', o.signal);
    const route = '/filesystem/{system}/transfer/upload';
    const json = { path: remotePath, account: o.account, transferDirectives: { transferMethod: 's3', fileSize } };
    const res = await this.http.request({ method: 'POST', route, params: { system }, json, expect: [201], call: { signal: o.signal } });
    const label = `POST ${route}`;
    const body = parseBody(Loose, res, label);
    const d = directivesOf(body);
    const partsUploadUrls = pick([d, body], ['partsUploadUrls', 'parts_upload_urls'], isStrArray);
    const completeUploadUrl = pick([d, body], ['completeUploadUrl', 'complete_upload_url', 'completeMultipartUploadUrl'], isStr);
    const partSize = pick([d, body], ['maxPartSize', 'max_part_size'], isNum);
    if (!partsUploadUrls || !completeUploadUrl || !partSize) {
      throw new MalformedResponseError(`Malformed answer on ${label}: the s3 transfer directives lack partsUploadUrls, completeUploadUrl or maxPartSize`, { status: res.status, route: label });
    }
    const need = Math.max(1, Math.ceil(fileSize / partSize));
    if (partsUploadUrls.length < need) {
      throw new MalformedResponseError(`Malformed answer on ${label}: ${partsUploadUrls.length} part URLs for ${need} parts of ${partSize} bytes`, { status: res.status, route: label });
    }
    return { transferJob: transferJobOf(res, label), partsUploadUrls, completeUploadUrl, partSize };
  }

  /**
   * Upstream's staging job puts the source path in its script unquoted: a path with whitespace is
   * staged through a plain-named symlink (`plainAlias.ts`), removed by `release` once the job ends.
   */
  async startDownload(system: string, remotePath: string, o: { account?: string; signal?: AbortSignal }): Promise<StagedDownloadTicket> {
    await this.checkMethod(system, 'download', o.signal);
    const alias = hasWhitespace(remotePath)
      ? await plainAlias(new OpsRoutes(this.http), system, remotePath, 'A staged download', { signal: o.signal, onReleaseError: (e) => this.http.logger.warn(`Removing the temporary symlink for the download of ${remotePath} failed: ${messageOf(e)}`) })
      : undefined;
    try {
      const route = '/filesystem/{system}/transfer/download';
      const json = { sourcePath: alias?.path ?? remotePath, account: o.account, transferDirectives: { transferMethod: 's3' } };
      const res = await this.http.request({ method: 'POST', route, params: { system }, json, expect: [201], call: { signal: o.signal } });
      const label = `POST ${route}`;
      const body = parseBody(Loose, res, label);
      const d = directivesOf(body);
      const downloadUrl = pick([d, body], ['downloadUrl', 'download_url'], isStr);
      if (!downloadUrl) throw new MalformedResponseError(`Malformed answer on ${label}: no downloadUrl in the s3 transfer directives`, { status: res.status, route: label });
      return { transferJob: transferJobOf(res, label), downloadUrl, release: alias ? () => alias.release() : undefined };
    } catch (e) {
      await alias?.release();
      throw e;
    }
  }
}
