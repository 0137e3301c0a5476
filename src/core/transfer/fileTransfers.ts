/**
 * File transfers that pick their route by size: up to the system's `maxDirectTransferSize` the
 * direct ops routes, above it the staging area. Either way the result is verified against the
 * server's SHA-256, and a download only replaces its destination once it is complete and verified.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { ChecksumMismatchError, InvalidInputError, NotSupportedError, TimeoutError } from '../errors';
import type { Progress } from '../model';
import { stagedDownload } from './stagedDownload';
import type { StagedTransferOptions, StagedTransfers, TransferResult } from './stagedTransfers';
import { stagedUpload } from './stagedUpload';
import type { TransferDeps } from './transferDeps';
import { bytesSource, fileSource, type UploadSource } from './uploadSource';

const LIMIT_CACHE_MS = 60_000;

/** Size-routed, verified uploads and downloads of one client (`client.transfers`). */
export class FileTransfers implements StagedTransfers {
  private readonly limits = new Map<string, { value: number; until: number }>();

  constructor(private readonly deps: TransferDeps) {}

  /** Largest file the direct routes take on `system` (cached for a minute). */
  async directLimit(system: string, signal?: AbortSignal): Promise<number> {
    const hit = this.limits.get(system);
    if (hit && hit.until > Date.now()) return hit.value;
    const systems = await this.deps.api.systems({ signal });
    for (const s of systems) this.limits.set(s.name, { value: s.maxDirectTransferSize, until: Date.now() + LIMIT_CACHE_MS });
    return this.limits.get(system)?.value ?? 1048576;
  }

  /** Uploads a local file to `remotePath`, direct or staged by its size. */
  async uploadFile(system: string, localPath: string, remotePath: string, o: StagedTransferOptions = {}): Promise<TransferResult> {
    const source = await fileSource(localPath);
    if (!o.resume && source.size <= (await this.directLimit(system, o.signal))) return this.direct(system, await readFile(localPath), remotePath, o);
    return this.staged(system, source, remotePath, o);
  }

  /** Uploads bytes held in memory (an editor save) to `remotePath`, direct or staged by size. */
  async uploadBytes(system: string, data: Uint8Array, remotePath: string, o: StagedTransferOptions = {}): Promise<TransferResult> {
    if (!o.resume && data.length <= (await this.directLimit(system, o.signal))) return this.direct(system, data, remotePath, o);
    return this.staged(system, bytesSource(data), remotePath, o);
  }

  /** Downloads `remotePath` into `localPath`, direct or staged by its size. */
  async downloadFile(system: string, remotePath: string, localPath: string, o: StagedTransferOptions = {}): Promise<TransferResult> {
    const size = (await this.deps.api.stat(system, remotePath, { signal: o.signal, dereference: true })).size;
    if (size <= (await this.directLimit(system, o.signal))) {
      const data = await this.deps.api.downloadSmall(system, remotePath, { signal: o.signal });
      const sha = createHash('sha256').update(data).digest('hex');
      return this.intoPlace(localPath, async (temp) => {
        await writeFile(temp, data);
        return { bytes: data.length, sha256: sha };
      }, system, remotePath, 'direct', o);
    }
    return this.download(system, remotePath, localPath, o);
  }

  /** Always staged (StagedTransfers). */
  async upload(system: string, localPath: string, remotePath: string, o: StagedTransferOptions = {}): Promise<TransferResult> {
    return this.staged(system, await fileSource(localPath), remotePath, o);
  }

  /** Always staged (StagedTransfers); `localPath` is replaced only by a complete, verified file. */
  download(system: string, remotePath: string, localPath: string, o: StagedTransferOptions = {}): Promise<TransferResult> {
    return this.intoPlace(localPath, (temp) => stagedDownload(this.deps, system, remotePath, temp, o), system, remotePath, 'staged', o);
  }

  private async direct(system: string, data: Uint8Array, remotePath: string, o: StagedTransferOptions): Promise<TransferResult> {
    o.onProgress?.({ phase: 'uploading', bytesDone: 0, bytesTotal: data.length });
    await this.deps.api.uploadSmall(system, posix.dirname(remotePath), posix.basename(remotePath), data, { signal: o.signal });
    o.onProgress?.({ phase: 'uploading', bytesDone: data.length, bytesTotal: data.length });
    const sha = createHash('sha256').update(data).digest('hex');
    return this.verifyUpload(system, remotePath, { route: 'direct', bytes: data.length, sha256: sha }, o);
  }

  private async staged(system: string, source: UploadSource, remotePath: string, o: StagedTransferOptions): Promise<TransferResult> {
    // Parts go out of order, so the hash is a separate in-order read. It runs while the transfer
    // job works (idle time for us), not next to the parts, which then keep the CPU to themselves.
    let hashing: Promise<string> | undefined;
    const { restarted } = await stagedUpload(this.deps, system, source, remotePath, withFinishedParts(o), () => {
      hashing = source.sha256(o.signal);
      hashing.catch(() => undefined);
    });
    const sha256 = await (hashing ?? source.sha256(o.signal));
    const r = await this.verifyUpload(system, remotePath, { route: 'staged', bytes: source.size, sha256 }, o);
    return restarted === undefined ? r : { ...r, restarted };
  }

  private async verifyUpload(system: string, remotePath: string, r: Omit<TransferResult, 'verified'>, o: StagedTransferOptions): Promise<TransferResult> {
    const remote = await this.remoteSha(system, remotePath, o);
    if (remote.sha === undefined) return reportVerified({ ...r, verified: false, note: remote.note }, o);
    if (remote.sha !== r.sha256) {
      throw new ChecksumMismatchError(`Upload to ${system}:${remotePath} arrived corrupted: local SHA-256 ${r.sha256}, server SHA-256 ${remote.sha}. The remote file holds what the server received; upload it again.`, r.sha256, remote.sha);
    }
    return reportVerified({ ...r, verified: true }, o);
  }

  /**
   * The server's SHA-256, or why there is none (verification off, or the checksum command timed
   * out). `asked`: the answer to a request already sent (a download asks as it starts).
   */
  private async remoteSha(system: string, remotePath: string, o: StagedTransferOptions, asked?: Promise<{ sha?: string; note?: string }>): Promise<{ sha?: string; note?: string }> {
    if (o.verify === false) return { note: 'verification turned off' };
    o.onProgress?.({ phase: 'verifying', message: 'Comparing SHA-256 with the server' });
    return asked ?? this.askSha(system, remotePath, o);
  }

  private async askSha(system: string, remotePath: string, o: StagedTransferOptions): Promise<{ sha?: string; note?: string }> {
    try {
      return { sha: (await this.deps.api.checksum(system, remotePath, { signal: o.signal })).checksum.toLowerCase() };
    } catch (e) {
      if (e instanceof TimeoutError) return { note: `the server could not compute the checksum in time (${e.message})` };
      if (e instanceof NotSupportedError) return { note: e.message };
      throw e;
    }
  }

  /**
   * Fills a temporary file next to `localPath`, verifies it, then renames it into place; removes it
   * otherwise. For a staged download the server's checksum of the source is asked for at once: the
   * cluster hashes while the transfer job stages the file and the client receives it, and what is
   * left to wait for at the end is the slower of the two.
   */
  private async intoPlace(localPath: string, fill: (temp: string) => Promise<{ bytes: number; sha256: string }>, system: string, remotePath: string, route: TransferResult['route'], o: StagedTransferOptions): Promise<TransferResult> {
    // Local mistakes are found before anything is staged, and reported typed like the server's.
    if ((await stat(localPath).catch(() => undefined))?.isDirectory()) throw new InvalidInputError(`${localPath} is a directory`);
    if (!(await stat(dirname(localPath)).catch(() => undefined))?.isDirectory()) throw new InvalidInputError(`Local folder ${dirname(localPath)} does not exist`);
    const temp = join(dirname(localPath), `.${basename(localPath)}.${randomBytes(4).toString('hex')}.f7t-part`);
    const early = route === 'staged' && o.verify !== false ? this.askSha(system, remotePath, o) : undefined;
    early?.catch(() => undefined);
    let placed = false;
    try {
      const got = await fill(temp);
      const remote = await this.remoteSha(system, remotePath, o, early);
      if (remote.sha !== undefined && remote.sha !== got.sha256) {
        throw new ChecksumMismatchError(`Download of ${system}:${remotePath} arrived corrupted: local SHA-256 ${got.sha256}, server SHA-256 ${remote.sha}. ${localPath} was left untouched.`, got.sha256, remote.sha);
      }
      await rename(temp, localPath);
      placed = true;
      return reportVerified({ route, ...got, verified: remote.sha !== undefined, note: remote.note }, o);
    } finally {
      if (!placed) await rm(temp, { force: true });
    }
  }
}

/** The last progress event of a transfer: the outcome of the SHA-256 comparison. */
function reportVerified(r: TransferResult, o: StagedTransferOptions): TransferResult {
  o.onProgress?.({ phase: r.verified ? 'verified' : 'unverified', bytesDone: r.bytes, bytesTotal: r.bytes, sha256: r.sha256, verified: r.verified, message: r.note });
  return r;
}

/** Adds the numbers of the parts accepted so far (from the upload state) to every progress event. */
function withFinishedParts(o: StagedTransferOptions): StagedTransferOptions {
  const onProgress = o.onProgress;
  if (!onProgress) return o;
  let finished: number[] = [];
  let last: Progress | undefined;
  return {
    ...o,
    onProgress: (p) => {
      last = p;
      onProgress(finished.length ? { ...p, partsFinished: finished } : p);
    },
    onState: (s) => {
      o.onState?.(s);
      if (s.done.length === finished.length) return;
      finished = s.done.map((d) => d.partNumber);
      if (last) onProgress({ ...last, partsDone: Math.max(last.partsDone ?? 0, finished.length), partsFinished: finished });
    },
  };
}
