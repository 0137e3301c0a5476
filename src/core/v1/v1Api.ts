/** `FirecrestApi` over API v1 (§2, §4.2), plus the v1-only operations of `V1Extras`. */
import { posix } from 'node:path';
import type {
  AccountingQuery, CallOptions, Capabilities, CompressOptions, FirecrestApi, HeadTailOptions, JobListOptions, ListOptions,
  MoveCopyOptions, TransferOptions, V1Extras, V1InternalTransferKind, V1InternalTransferOptions, V1ReservationRequest, V1TaskInfo, WaitOptions,
} from '../api';
import { NotFoundError, NotSupportedError, ServerError, TimeoutError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import type { S3Http } from '../transfer/s3Http';
import { sleep } from '../http/sleep';
import type { Checksum, ComputeNode, FileContent, FileEntry, FileStat, Job, JobMetadata, JobSubmission, Partition, Reservation, System, TransferJob, UserInfo } from '../model';
import { ComputeRoutes, hasOverrides } from './compute';
import { RecentJobs } from './recentJobs';
import { ReservationRoutes } from './reservations';
import { V1Staging } from './staging';
import { StatusRoutes, V1_16 } from './status';
import { StorageRoutes } from './storage';
import { Tasks } from './tasks';
import { UtilitiesRoutes } from './utilities';
import { V1Http } from './v1Http';
import { createEmptyFile } from '../emptyFile';
import { checkedJobId, withJobId } from '../jobArrays';


/** The synchronous command hit the server's time-out: the job-backed route takes over (§4.2). */
function timedOut(e: unknown): boolean {
  return e instanceof TimeoutError && e.status === 400;
}

/**
 * The archive type `extract` sends, from the file name: the server takes only `.zip .tar .bz2 .gz
 * .tgz`, with the dot (`tar.gz` is "Unsupported file format" upstream), and no type at all.
 */
export function archiveType(path: string): string | undefined {
  const m = /\.(tar\.gz|tgz|tar\.bz2|tar|zip|gz|bz2)$/i.exec(path);
  if (!m) return undefined;
  const ext = m[1].toLowerCase();
  return ext === 'tar.gz' ? '.gz' : ext === 'tar.bz2' ? '.bz2' : `.${ext}`;
}

/** One v1 connection. Construct with the client's ApiHttp. */
export class V1Api implements FirecrestApi, V1Extras {
  readonly apiVersion = 'v1' as const;
  readonly capabilities: Capabilities = { attach: false, directRename: true, reservationsManagement: true, tasks: true, jobScriptPath: true, jobScript: false, submitOverrides: false };
  private readonly status: StatusRoutes;
  private readonly util: UtilitiesRoutes;
  private readonly compute: ComputeRoutes;
  private readonly storage: StorageRoutes;
  private readonly rsv: ReservationRoutes;
  private readonly taskRoutes: Tasks;
  private readonly recent: RecentJobs;
  /** The staged transfers of this connection (`StagingRoutes` of `core/transfer`). */
  readonly staging: V1Staging;

  /** `s3` carries the staging-area traffic (the client's S3 pools and TLS settings). */
  constructor(http: ApiHttp, s3: S3Http, opts: { windowRefreshMs?: number } = {}) {
    const v1 = new V1Http(http);
    this.taskRoutes = new Tasks(v1);
    this.status = new StatusRoutes(v1);
    this.util = new UtilitiesRoutes(v1);
    this.compute = new ComputeRoutes(v1, this.taskRoutes);
    this.storage = new StorageRoutes(v1, this.taskRoutes);
    this.rsv = new ReservationRoutes(v1);
    this.staging = new V1Staging(http, s3);
    const wanted = (jobs: Job[], o: JobListOptions) => jobs.filter((j) => (!o.name || j.name === o.name) && (!o.account || j.account === undefined || j.account === o.account));
    this.recent = new RecentJobs({
      finished: async (machine, jobIds, o) => wanted(await this.compute.accounting(machine, { jobIds, signal: o.signal, timeoutMs: o.timeoutMs }), o),
      recent: async (machine, startTime, count, o) => wanted(await this.compute.newestAccounting(machine, startTime, count, { signal: o.signal, timeoutMs: o.timeoutMs }), o),
    }, Date.now, opts.windowRefreshMs);
  }

  serverVersion(o?: CallOptions): Promise<string | undefined> { return this.status.version(o); }
  systems(o?: CallOptions): Promise<System[]> { return this.status.systems(o); }
  async partitions(system: string, o?: CallOptions): Promise<Partition[]> { await this.status.gate(V1_16, 'Partitions', o); return this.compute.partitions(system, o); }
  async nodes(system: string, o?: CallOptions): Promise<ComputeNode[]> { await this.status.gate(V1_16, 'Nodes', o); return this.compute.nodes(system, o); }
  async reservations(system: string, o?: CallOptions): Promise<Reservation[]> { await this.status.gate(V1_16, 'Reservations', o); return this.compute.reservations(system, o); }
  /** whoami with groups; v1 does not report scheduler accounts. */
  userInfo(system: string, o?: CallOptions): Promise<UserInfo> { return this.util.whoami(system, o); }

  async list(system: string, path: string, o: ListOptions = {}): Promise<FileEntry[]> {
    if (o.recursive) await this.status.gate(V1_16, 'Recursive listing', o);
    return this.util.list(system, path, o);
  }
  stat(system: string, path: string, o?: CallOptions & { dereference?: boolean }): Promise<FileStat> { return this.util.stat(system, path, o); }
  head(system: string, path: string, o?: HeadTailOptions): Promise<FileContent> { return this.util.head(system, path, o); }
  tail(system: string, path: string, o?: HeadTailOptions): Promise<FileContent> { return this.util.tail(system, path, o); }
  /** v1's `view` is `head` (10 lines, Q6): the whole small file is downloaded and sliced here. */
  async view(system: string, path: string, o: CallOptions & { offset?: number; size?: number } = {}): Promise<string> {
    const all = await this.util.download(system, path, o);
    const start = o.offset ?? 0;
    return Buffer.from(all.subarray(start, o.size === undefined ? undefined : start + o.size)).toString('utf8');
  }
  checksum(system: string, path: string, o?: CallOptions): Promise<Checksum> { return this.util.checksum(system, path, o); }
  fileType(system: string, path: string, o?: CallOptions): Promise<string> { return this.util.fileType(system, path, o); }
  /** v1 answers chmod/chown with the tool's text: the entry is listed afterwards, as v2 returns it. */
  async chmod(system: string, path: string, mode: string, o?: CallOptions): Promise<FileEntry | undefined> {
    await this.util.chmod(system, path, mode, o);
    return this.entry(system, path, o);
  }
  async chown(system: string, path: string, owner: string, group: string, o?: CallOptions): Promise<FileEntry | undefined> {
    await this.util.chown(system, path, owner, group, o);
    return this.entry(system, path, o);
  }
  /** The entry of `path` from its parent's listing (listing `path` itself would list a directory's contents). */
  private async entry(system: string, path: string, o?: CallOptions): Promise<FileEntry | undefined> {
    const slash = path.replace(/\/+$/, '').lastIndexOf('/');
    const parent = slash <= 0 ? '/' : path.slice(0, slash);
    const name = path.replace(/\/+$/, '').slice(slash + 1);
    const all = await this.util.list(system, parent, { showHidden: true, signal: o?.signal });
    return all.find((e) => e.name === name);
  }
  mkdir(system: string, path: string, o?: CallOptions & { parents?: boolean }): Promise<void> { return this.util.mkdir(system, path, o); }
  symlink(system: string, target: string, linkPath: string, o?: CallOptions): Promise<void> { return this.util.symlink(system, target, linkPath, o); }
  downloadSmall(system: string, path: string, o?: CallOptions): Promise<Uint8Array> { return this.util.download(system, path, o); }
  uploadSmall(system: string, directory: string, fileName: string, data: Uint8Array, o: CallOptions = {}): Promise<void> {
    if (data.byteLength > 0) return this.util.upload(system, directory, fileName, data, o);
    return createEmptyFile({
      upload: (dir, name, bytes, c) => this.util.upload(system, dir, name, bytes, c),
      extract: (archive, dir, c) => this.util.extract(system, archive, dir, { ...c, type: '.gz' }),
      remove: (path, c) => this.util.rm(system, path, c),
    }, directory, fileName, o);
  }

  async remove(system: string, path: string, o: WaitOptions & { account?: string } = {}): Promise<void> {
    try {
      await this.util.rm(system, path, o);
    } catch (e) {
      if (!timedOut(e)) throw e;
      await this.waitForTransferJob(await this.storage.internal(system, 'rm', { targetPath: path, account: o.account }, o), o);
    }
  }

  /** Direct rename: done when it returns (undefined). */
  async move(system: string, source: string, target: string, o: MoveCopyOptions = {}): Promise<TransferJob | undefined> {
    await this.util.rename(system, source, target, o);
    return undefined;
  }

  private async fallback(system: string, kind: V1InternalTransferKind, t: V1InternalTransferOptions, o: MoveCopyOptions, direct: () => Promise<void>): Promise<TransferJob | undefined> {
    try {
      await direct();
      return undefined;
    } catch (e) {
      if (!timedOut(e)) throw e;
      const job = await this.storage.internal(system, kind, { ...t, account: o.account }, o);
      if (o.wait !== false) await this.waitForTransferJob(job, o);
      return job;
    }
  }

  copy(system: string, source: string, target: string, o: MoveCopyOptions = {}): Promise<TransferJob | undefined> {
    return this.fallback(system, 'cp', { sourcePath: source, targetPath: target }, o, () => this.util.copy(system, source, target, o));
  }

  /** gzip tar only (v1 has no other compression); `Command has finished with timeout signal` → xfer-internal. */
  async compress(system: string, source: string, target: string, o: CompressOptions = {}): Promise<TransferJob | undefined> {
    await this.status.gate(V1_16, 'Compress', o);
    if ((o.compression && o.compression !== 'gzip') || o.matchPattern) throw new NotSupportedError('API v1 compresses with gzip only and has no match pattern');
    return this.fallback(system, 'compress', { sourcePath: source, targetPath: target, dereference: o.dereference }, o, () => this.util.compress(system, source, target, o));
  }

  async extract(system: string, source: string, targetDir: string, o: CompressOptions = {}): Promise<TransferJob | undefined> {
    await this.status.gate(V1_16, 'Extract', o);
    const type = archiveType(source);
    return this.fallback(system, 'extract', { sourcePath: source, targetPath: targetDir, type }, o, () => this.util.extract(system, source, targetDir, { ...o, type }));
  }

  /**
   * `jobs/path` takes no options: a script already on the cluster submitted with some (a
   * dependency, a partition...) is read and sent inline with them, run from its own folder unless
   * the submission names another.
   */
  async submitJob(system: string, submission: JobSubmission, o?: CallOptions): Promise<string> {
    let job = submission;
    if (job.script === undefined && job.scriptPath && hasOverrides(job)) {
      const { scriptPath, ...rest } = job;
      job = { ...rest, script: new TextDecoder().decode(await this.util.download(system, scriptPath, o)), workingDirectory: job.workingDirectory || posix.dirname(scriptPath) };
    }
    const id = await this.compute.submit(system, job, o);
    this.recent.noteSubmitted(system, id);
    return id;
  }
  /** The queue and, like v2's listing, the jobs that finished within `timeWindow` (default 24 h): the window's newest (asked for once per window), and those this connection submitted or saw queued. */
  async jobs(system: string, o: JobListOptions = {}): Promise<Job[]> {
    const queue = await this.compute.jobs(system, o);
    if (o.queueOnly) return queue;
    // The finished jobs come from accounting, asked for by window and by id: the name and account
    // asked for apply to them as to the queue (a name filter listed every recent job: real v1).
    const merged = await this.recent.merge(system, queue, o);
    return merged.filter((j) => (!o.name || j.name === o.name) && (!o.account || j.account === undefined || j.account === o.account));
  }
  job(system: string, jobId: string, o?: CallOptions): Promise<Job> { return withJobId(jobId, (id) => this.compute.job(system, id, o)); }
  /** v1 cannot return a job's script; only the log paths squeue reports. */
  async jobMetadata(system: string, jobId: string, o?: CallOptions): Promise<JobMetadata> {
    const j = await this.compute.job(system, checkedJobId(jobId), o);
    return { id: j.id, stdoutPath: j.stdoutPath, stderrPath: j.stderrPath };
  }
  cancelJob(system: string, jobId: string, o?: CallOptions): Promise<void> { return withJobId(jobId, (id) => this.compute.cancel(system, id, o)); }
  cancelJobTask(system: string, task: Job, o?: CallOptions): Promise<void> { return this.compute.cancelTask(system, task, o); }
  attachToJob(): Promise<void> { return Promise.reject(new NotSupportedError('Attaching to a job is not available on FirecREST API v1')); }
  accounting(system: string, q: AccountingQuery): Promise<Job[]> { return this.compute.accounting(system, q); }

  /** Polls with sleeps 1, 2, 4, ... 16 s until a final state (§4.2); on overall time-out the job is cancelled. */
  async waitForJob(system: string, jobId: string, o: WaitOptions = {}): Promise<Job> {
    checkedJobId(jobId);
    const started = Date.now();
    let next = 500;
    for (;;) {
      try {
        const job = await this.compute.job(system, jobId, o);
        o.onProgress?.({ phase: job.state, message: `Job ${jobId} is ${job.state}` });
        if (job.isFinal) return job;
      } catch (e) {
        if (!(e instanceof NotFoundError) || Date.now() - started > (o.notFoundTimeoutMs ?? 20_000)) throw e;
      }
      if (o.overallTimeoutMs !== undefined && Date.now() - started + next > o.overallTimeoutMs) {
        await this.compute.cancel(system, jobId).catch(() => undefined);
        throw new TimeoutError(`Job ${jobId} did not finish within ${Math.round(o.overallTimeoutMs / 1000)} s; it was cancelled`);
      }
      await sleep(next, o.signal);
      next = Math.min(next * 2, 16_000);
    }
  }

  /** The job must end COMPLETED and its error file be empty (§4.2). */
  async waitForTransferJob(t: TransferJob, o: WaitOptions = {}): Promise<void> {
    // A staged download's ticket: its task already reached 117, there is no scheduler job.
    if (t.jobId === '' && t.taskId) return;
    const job = await this.waitForJob(t.system, t.jobId, o);
    if (job.stateClass !== 'completed') throw new ServerError(`Transfer job ${t.jobId} ended ${job.state}`);
    if (!t.errorLog) return;
    const err = (await this.util.head(t.system, t.errorLog, { bytes: 2000, signal: o.signal }).catch(() => ({ content: '' }))).content.trim();
    if (err) throw new ServerError(`Transfer job ${t.jobId} failed: ${err}`, { causedBy: [err] });
  }

  // --- V1Extras
  tasks(o?: CallOptions): Promise<V1TaskInfo[]> { return this.taskRoutes.list(o); }
  reservationsManaged(system: string, o?: CallOptions): Promise<Reservation[]> { return this.rsv.list(system, o); }
  reservationsCreate(system: string, name: string, account: string, r: V1ReservationRequest, o?: CallOptions): Promise<void> { return this.rsv.create(system, name, account, r, o); }
  reservationsUpdate(system: string, name: string, r: V1ReservationRequest, o?: CallOptions): Promise<void> { return this.rsv.update(system, name, r, o); }
  reservationsDelete(system: string, name: string, o?: CallOptions): Promise<void> { return this.rsv.remove(system, name, o); }
  internalTransfer(system: string, kind: V1InternalTransferKind, t: V1InternalTransferOptions, o?: CallOptions): Promise<TransferJob> { return this.storage.internal(system, kind, t, o); }
  externalUpload(system: string, localPath: string, remotePath: string, o?: TransferOptions): Promise<string> { return this.staging.upload(system, localPath, remotePath, o); }
  async externalDownload(system: string, remotePath: string, o: TransferOptions = {}): Promise<{ url: string; taskId: string }> {
    const t = await this.staging.startDownload(system, remotePath, o);
    return { url: t.downloadUrl, taskId: t.transferJob.taskId ?? '' };
  }
  invalidateDownload(taskId: string, o?: CallOptions): Promise<void> { return this.staging.invalidate(taskId, o); }
}
