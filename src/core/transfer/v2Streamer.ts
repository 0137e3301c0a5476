/**
 * Large transfers on a v2 site configured with the `streamer` method (wire reference §3.5): the
 * server submits a job that runs the streamer on the cluster and answers with its coordinates; the
 * client waits for the job to run, connects and moves the bytes itself (`streamer.ts`), then waits
 * for the job to end well.
 *
 * Upstream's upload job refuses a target that exists (the upload would be a save over a file) and
 * puts the path in its script unquoted. So an upload goes to a fresh plain name in the target's
 * folder (or the nearest plain folder above it) and is moved over the target once whole: a failed
 * transfer leaves the old file as it was. A download of a path with whitespace goes through a
 * plain-named symlink, as the S3 staged download does.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { z } from 'zod';
import type { FirecrestApi, TransferOptions } from '../api';
import { CancelledError, isCancellation, messageOf, NotSupportedError, ServerError, UnavailableError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import { backoffMs } from '../http/retryAfter';
import { sleep } from '../http/sleep';
import type { TransferJob } from '../model';
import { OpsRoutes } from '../v2/ops';
import { parseBody } from '../v2/parse';
import { hasWhitespace, plainAlias, plainFolderAbove } from '../v2/plainAlias';
import { isJobNotFound } from '../v2/wait';
import { TransferJobW } from '../v2/wire';
import { ProgressMeter } from './progressMeter';
import { connectStreamer, parseCoordinates, streamReceive, streamSend, type StreamChannel, type StreamerCoordinates } from './streamer';
import type { UploadSource } from './uploadSource';

/** The answer of `transfer/upload|download`: the job, and the streamer's coordinates (camelCase since 2.5.0). */
const Directives = z.object({ coordinates: z.string().optional() }).passthrough().nullish();
const StreamerAnswerW = TransferJobW.extend({ transferDirectives: Directives, transfer_directives: Directives });

/** How long a running job may take to start listening (upstream's first installs the streamer with pip). */
const LISTEN_WITHIN_MS = 10 * 60_000;

interface Started {
  job: TransferJob;
  coordinates: StreamerCoordinates;
}

/** The streamer transfers of one v2 connection. */
export class V2Streamer {
  private readonly ops: OpsRoutes;

  constructor(private readonly http: ApiHttp, private readonly api: () => FirecrestApi) {
    this.ops = new OpsRoutes(http);
  }

  private async start(direction: 'upload' | 'download', system: string, path: string, o: TransferOptions): Promise<Started> {
    const route = `/filesystem/{system}/transfer/${direction}`;
    const json = direction === 'upload'
      ? { path, account: o.account, transferDirectives: { transferMethod: 'streamer' } }
      : { sourcePath: path, account: o.account, transferDirectives: { transferMethod: 'streamer' } };
    const res = await this.http.request({ method: 'POST', route, params: { system }, json, expect: [201], call: { signal: o.signal } });
    const label = `POST ${route}`;
    const body = parseBody(StreamerAnswerW, res, label);
    const encoded = (body.transferDirectives ?? body.transfer_directives)?.coordinates;
    const t = body.transferJob;
    const job: TransferJob = { jobId: t.jobId, system: t.system, workingDirectory: t.workingDirectory ?? undefined, outputLog: t.logs?.outputLog ?? undefined, errorLog: t.logs?.errorLog ?? undefined };
    try {
      return { job, coordinates: parseCoordinates(encoded ?? '', label) };
    } catch (e) {
      await this.api().cancelJob(system, job.jobId).catch(() => undefined);
      throw e;
    }
  }

  /**
   * Waits for the job to run and its streamer to take the secret. A job that ends first failed
   * (its error log says why); one that runs but does not listen within ten minutes is given up.
   */
  private async connect(s: Started, o: TransferOptions): Promise<StreamChannel> {
    const api = this.api();
    const { jobId, system } = s.job;
    let runningSince: number | undefined;
    for (let attempt = 0; ; attempt++) {
      const job = await api.job(system, jobId, { signal: o.signal }).catch((e: unknown) => {
        // A job the scheduler does not list yet is pending.
        if (o.signal?.aborted || !isJobNotFound(e)) throw e;
        return undefined;
      });
      if (job?.isFinal) throw new ServerError(`Transfer job ${jobId} ended ${job.state} before its streamer took the transfer${await this.errorHead(s.job)}`);
      if (job?.stateClass === 'running') {
        runningSince ??= Date.now();
        o.onProgress?.({ phase: 'staging', message: `Connecting to the streamer of transfer job ${jobId}` });
        try {
          return await connectStreamer(s.coordinates, o.signal);
        } catch (e) {
          if (!(e instanceof UnavailableError)) throw e;
          if (Date.now() - runningSince > LISTEN_WITHIN_MS) throw new UnavailableError(`${e.message}: transfer job ${jobId} runs but its streamer did not listen within ${LISTEN_WITHIN_MS / 60_000} minutes`, { cause: e });
        }
      } else {
        o.onProgress?.({ phase: 'waiting', message: `Waiting for transfer job ${jobId} to start${job ? ` (${job.state.toLowerCase()})` : ''}` });
      }
      await sleep(backoffMs(Math.min(attempt, 6), 250, 5000), o.signal);
    }
  }

  private async errorHead(job: TransferJob): Promise<string> {
    if (!job.errorLog) return '';
    const head = await this.ops.head(job.system, job.errorLog, { bytes: 2000 }).then((c) => c.content.trim(), () => '');
    return head ? `: ${head}` : '';
  }

  /** After a failure: the job stops (it would wait a day for a connection). */
  private async stop(job: TransferJob): Promise<void> {
    await this.api().cancelJob(job.system, job.jobId).catch(() => undefined);
  }

  /** `source` to `remotePath`, through a fresh name next to it and a move once whole. */
  upload = async (system: string, source: UploadSource, remotePath: string, o: TransferOptions): Promise<void> => {
    const api = this.api();
    const dir = posix.dirname(remotePath);
    const folder = hasWhitespace(dir) ? plainFolderAbove(remotePath) : dir;
    if (!folder) throw new NotSupportedError(`A streamed upload cannot go to ${remotePath} on this server (FirecREST v2 splits paths on whitespace), and no folder above it has a path without whitespace for the temporary file`);
    const temp = `${folder.replace(/\/+$/, '')}/.f7t-stream-${randomBytes(8).toString('hex')}`;
    o.onProgress?.({ phase: 'staging', bytesDone: 0, bytesTotal: source.size, message: 'Requesting a streamed upload' });
    const s = await this.start('upload', system, temp, o);
    let moved = false;
    try {
      const ch = await this.connect(s, o);
      const meter = new ProgressMeter(source.size, undefined, o.onProgress, 'uploading');
      await streamSend(ch, source, { signal: o.signal, onBytes: (n) => meter.add(n) });
      meter.setPhase('waiting', `All bytes sent; waiting for transfer job ${s.job.jobId} to end`);
      await api.waitForTransferJob(s.job, { signal: o.signal });
      await api.move(system, temp, remotePath, { signal: o.signal });
      moved = true;
    } catch (e) {
      await this.stop(s.job);
      if (o.signal?.aborted || isCancellation(e)) throw e instanceof CancelledError ? e : new CancelledError('Upload cancelled', { cause: e });
      throw e;
    } finally {
      // What did not reach its place goes (nothing, when the job never wrote it).
      if (!moved) await api.remove(system, temp).catch(() => undefined);
    }
  };

  /** `remotePath` into the local file `temp`, with its size and SHA-256 as received. */
  download = async (system: string, remotePath: string, temp: string, o: TransferOptions): Promise<{ bytes: number; sha256: string }> => {
    const api = this.api();
    o.onProgress?.({ phase: 'staging', message: 'Requesting a streamed download' });
    const alias = hasWhitespace(remotePath)
      ? await plainAlias(this.ops, system, remotePath, 'A streamed download', { signal: o.signal, onReleaseError: (e) => this.http.logger.warn(`Removing the temporary symlink for the download of ${remotePath} failed: ${messageOf(e)}`) })
      : undefined;
    try {
      const s = await this.start('download', system, alias?.path ?? remotePath, o);
      try {
        const ch = await this.connect(s, o);
        let meter: ProgressMeter | undefined;
        const got = await streamReceive(ch, temp, {
          signal: o.signal,
          onStart: (size) => { meter = new ProgressMeter(size, undefined, o.onProgress, 'downloading'); },
          onBytes: (n) => meter?.add(n),
        });
        await api.waitForTransferJob(s.job, { signal: o.signal });
        return got;
      } catch (e) {
        await this.stop(s.job);
        if (o.signal?.aborted || isCancellation(e)) throw e instanceof CancelledError ? e : new CancelledError('Download cancelled', { cause: e });
        throw e;
      }
    } finally {
      await alias?.release();
    }
  };
}
