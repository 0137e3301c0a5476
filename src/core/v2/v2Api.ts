/** `FirecrestApi` over API v2: the routers of §3 plus the official client's blocking behaviours. */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type {
  AccountingQuery,
  CallOptions,
  Capabilities,
  CompressOptions,
  FirecrestApi,
  HeadTailOptions,
  JobListOptions,
  ListOptions,
  MoveCopyOptions,
  WaitOptions,
} from '../api';
import { ServerError, TimeoutError, UnavailableError } from '../errors';
import type { ApiHttp } from '../http/apiHttp';
import { NetworkError } from '../http/transport';
import type { Checksum, ComputeNode, FileContent, FileEntry, FileStat, Job, JobMetadata, JobSubmission, Partition, Reservation, System, TransferJob, UserInfo } from '../model';
import { ComputeRoutes } from './compute';
import { findLostJob, findLostTransferJob, mayHaveArrived, type LostSubmission } from './lostSubmission';
import { fitsMultipartFilename } from './multipart';
import { OpsRoutes } from './ops';
import { StatusRoutes } from './status';
import { TransferRoutes } from './transfer';
import { JobWaiter } from './wait';
import { createEmptyFile } from '../emptyFile';
import { withJobId } from '../jobArrays';
import { checkDependency } from '../jobScript';

/** The ops command hit the server's per-command timeout: the job-backed route takes over (§4.3). */
function isRemoteTimeout(e: unknown, alsoExit124: boolean): boolean {
  if (e instanceof TimeoutError && e.status === 408) return true;
  return alsoExit124 && e instanceof ServerError && e.status === 500 && e.message.includes('exit status:124');
}

/** One v2 connection. Construct with the client's ApiHttp. */
export class V2Api implements FirecrestApi {
  readonly apiVersion = 'v2' as const;
  readonly capabilities: Capabilities = { attach: true, directRename: false, reservationsManagement: false, tasks: false, jobScriptPath: true, jobScript: true, submitOverrides: true };
  private readonly status: StatusRoutes;
  private readonly ops: OpsRoutes;
  private readonly transfer: TransferRoutes;
  private readonly compute: ComputeRoutes;
  private readonly waiter: JobWaiter;

  constructor(http: ApiHttp) {
    this.status = new StatusRoutes(http);
    this.ops = new OpsRoutes(http);
    this.transfer = new TransferRoutes(http);
    this.compute = new ComputeRoutes(http);
    this.waiter = new JobWaiter(this.compute, this.ops);
  }

  serverVersion(o?: CallOptions): Promise<string | undefined> { return this.status.serverVersion(o); }
  systems(o?: CallOptions): Promise<System[]> { return this.status.systems(o); }
  partitions(system: string, o?: CallOptions): Promise<Partition[]> { return this.status.partitions(system, o); }
  nodes(system: string, o?: CallOptions): Promise<ComputeNode[]> { return this.status.nodes(system, o); }
  reservations(system: string, o?: CallOptions): Promise<Reservation[]> { return this.status.reservations(system, o); }
  userInfo(system: string, o?: CallOptions): Promise<UserInfo> { return this.status.userInfo(system, o); }

  list(system: string, path: string, o?: ListOptions): Promise<FileEntry[]> { return this.ops.list(system, path, o); }
  stat(system: string, path: string, o?: CallOptions & { dereference?: boolean }): Promise<FileStat> { return this.ops.stat(system, path, o); }
  head(system: string, path: string, o?: HeadTailOptions): Promise<FileContent> { return this.ops.head(system, path, o); }
  tail(system: string, path: string, o?: HeadTailOptions): Promise<FileContent> { return this.ops.tail(system, path, o); }
  view(system: string, path: string, o?: CallOptions & { offset?: number; size?: number }): Promise<string> { return this.ops.view(system, path, o); }
  checksum(system: string, path: string, o?: CallOptions): Promise<Checksum> { return this.ops.checksum(system, path, o); }
  fileType(system: string, path: string, o?: CallOptions): Promise<string> { return this.ops.fileType(system, path, o); }
  chmod(system: string, path: string, mode: string, o?: CallOptions): Promise<FileEntry | undefined> { return this.ops.chmod(system, path, mode, o); }
  chown(system: string, path: string, owner: string, group: string, o?: CallOptions): Promise<FileEntry | undefined> { return this.ops.chown(system, path, owner, group, o); }
  mkdir(system: string, path: string, o?: CallOptions & { parents?: boolean }): Promise<void> { return this.ops.mkdir(system, path, o); }
  symlink(system: string, target: string, linkPath: string, o?: CallOptions): Promise<void> { return this.ops.symlink(system, target, linkPath, o); }
  downloadSmall(system: string, path: string, o?: CallOptions): Promise<Uint8Array> { return this.ops.download(system, path, o); }

  /**
   * A name no multipart filename carries intact (line breaks, backslashes) is uploaded under a
   * temporary name in the same folder and then renamed by a transfer job (v2 has no direct rename).
   */
  async uploadSmall(system: string, directory: string, fileName: string, data: Uint8Array, o: CallOptions = {}): Promise<void> {
    if (data.byteLength === 0) {
      return createEmptyFile({
        upload: (dir, name, bytes, c) => this.ops.upload(system, dir, name, bytes, c),
        extract: (archive, dir, c) => this.ops.extract(system, archive, dir, { ...c, compression: 'gzip' }),
        remove: (path, c) => this.ops.rm(system, path, c),
      }, directory, fileName, o);
    }
    if (fitsMultipartFilename(fileName)) return this.ops.upload(system, directory, fileName, data, o);
    const dir = directory.replace(/\/+$/, '');
    const temp = `${dir}/.f7t-upload-${randomBytes(8).toString('hex')}`;
    const target = `${dir}/${fileName}`;
    await this.ops.upload(system, directory, temp.slice(dir.length + 1), data, o);
    try {
      await this.move(system, temp, target, { signal: o.signal, timeoutMs: o.timeoutMs });
    } catch (e) {
      await this.ops.rm(system, temp).catch(() => undefined);
      throw e;
    }
  }

  async remove(system: string, path: string, o: WaitOptions & { account?: string } = {}): Promise<void> {
    try {
      await this.ops.rm(system, path, o);
    } catch (e) {
      if (!isRemoteTimeout(e, true)) throw e;
      await this.waiter.waitForTransferJob(await this.transfer.rm(system, path, o), o);
    }
  }

  private async finish(job: TransferJob, o: MoveCopyOptions): Promise<TransferJob> {
    if (o.wait !== false) await this.waiter.waitForTransferJob(job, o);
    return job;
  }

  async move(system: string, source: string, target: string, o: MoveCopyOptions = {}): Promise<TransferJob | undefined> {
    return this.finish(await this.submitTransfer({ system, kind: 'mv', source, target, sentAt: Date.now() }, () => this.transfer.mv(system, source, target, o), o), o);
  }

  async copy(system: string, source: string, target: string, o: MoveCopyOptions = {}): Promise<TransferJob | undefined> {
    return this.finish(await this.submitTransfer({ system, kind: 'cp', source, target, sentAt: Date.now() }, () => this.transfer.cp(system, source, target, o), o), o);
  }

  /**
   * Submits a transfer job. When the answer is lost after the request may have arrived, the job it
   * started is looked for before anything is reported: found, it is waited for and judged by its
   * log like any other; not found, the request started nothing and the network error stands.
   */
  private async submitTransfer(lost: LostSubmission, submit: () => Promise<TransferJob>, o: MoveCopyOptions): Promise<TransferJob> {
    try {
      return await submit();
    } catch (e) {
      if (!mayHaveArrived(e)) throw e;
      let job: TransferJob | undefined;
      try {
        job = await findLostTransferJob(this.compute, lost, { signal: o.signal, timeoutMs: o.timeoutMs });
      } catch (lookup) {
        const verb = lost.kind === 'mv' ? 'move' : 'copy';
        throw new UnavailableError(`${(e as Error).message}; the ${verb} may still happen: its job could not be looked for (${(lookup as Error).message})`, { cause: e, route: (e as UnavailableError).route });
      }
      if (job) return job;
      if (e instanceof NetworkError && e.closedIdle) return submit();
      throw e;
    }
  }

  /** Direct compress; on the server's 408 the job-backed route (undefined result = done directly). */
  async compress(system: string, source: string, target: string, o: CompressOptions = {}): Promise<TransferJob | undefined> {
    try {
      await this.ops.compress(system, source, target, o);
      return undefined;
    } catch (e) {
      if (!isRemoteTimeout(e, false)) throw e;
      return this.finish(await this.transfer.compress(system, source, target, o), o);
    }
  }

  async extract(system: string, source: string, targetDir: string, o: CompressOptions = {}): Promise<TransferJob | undefined> {
    try {
      await this.ops.extract(system, source, targetDir, o);
      return undefined;
    } catch (e) {
      if (!isRemoteTimeout(e, false)) throw e;
      return this.finish(await this.transfer.extract(system, source, targetDir, o), o);
    }
  }

  /**
   * A submission whose answer was lost (a dropped connection, a time-out) may still have made its
   * job: it is looked for by its exact script before a failure is reported, so that the user never
   * submits it twice.
   */
  async submitJob(system: string, submission: JobSubmission, o: CallOptions = {}): Promise<string> {
    const job = await this.inlineForDependency(system, submission, o);
    const sentAt = Date.now();
    try {
      return await this.compute.submit(system, job, o);
    } catch (e) {
      const script = mayHaveArrived(e) ? ComputeRoutes.scriptOf(job) : undefined;
      if (script === undefined) throw e;
      let found: string | undefined;
      try {
        found = await findLostJob(this.compute, { system, script, sentAt }, { signal: o.signal });
      } catch (lookup) {
        throw new UnavailableError(`${(e as Error).message}; the job may have been submitted all the same, and could not be looked for (${(lookup as Error).message}): look in the Jobs view before submitting again`, { cause: e, route: (e as UnavailableError).route });
      }
      if (found) return found;
      // Not there, and the server had closed an idle connection under it: it never read the
      // submission, which goes again once.
      if (e instanceof NetworkError && e.closedIdle) return this.compute.submit(system, job, o);
      throw e;
    }
  }
  /**
   * v2 has no dependency field: it goes into the script as an `#SBATCH --dependency` line. A script
   * already on the cluster is read and sent inline with it, run from its own folder (unless the
   * submission names another), as sbatch of the file would.
   */
  private async inlineForDependency(system: string, job: JobSubmission, o: CallOptions): Promise<JobSubmission> {
    if (job.dependency === undefined || job.script !== undefined || !job.scriptPath) return job;
    checkDependency(job.dependency);
    const text = new TextDecoder().decode(await this.ops.download(system, job.scriptPath, o));
    const { scriptPath, ...rest } = job;
    return { ...rest, script: text, workingDirectory: job.workingDirectory || posix.dirname(scriptPath) };
  }

  jobs(system: string, o?: JobListOptions): Promise<Job[]> { return this.compute.jobs(system, o); }
  job(system: string, jobId: string, o?: CallOptions): Promise<Job> { return withJobId(jobId, (id) => this.compute.job(system, id, o)); }
  jobMetadata(system: string, jobId: string, o?: CallOptions): Promise<JobMetadata> { return withJobId(jobId, (id) => this.compute.metadata(system, id, o)); }
  cancelJob(system: string, jobId: string, o?: CallOptions): Promise<void> { return withJobId(jobId, (id) => this.compute.cancel(system, id, o)); }
  cancelJobTask(system: string, task: Job, o?: CallOptions): Promise<void> { return this.compute.cancelTask(system, task, o); }
  attachToJob(system: string, jobId: string, command: string, o?: CallOptions): Promise<void> { return withJobId(jobId, (id) => this.compute.attach(system, id, command, o)); }
  waitForJob(system: string, jobId: string, o?: WaitOptions): Promise<Job> { return withJobId(jobId, (id) => this.waiter.waitForJob(system, id, o)); }
  waitForTransferJob(job: TransferJob, o?: WaitOptions): Promise<void> { return this.waiter.waitForTransferJob(job, o); }

  /** v2 has no accounting route: the widest job listing, filtered here by ids and time range. */
  async accounting(system: string, q: AccountingQuery): Promise<Job[]> {
    const jobs = await this.compute.jobs(system, { allUsers: q.allUsers, account: q.account, name: q.name, timeWindow: '7d', signal: q.signal, timeoutMs: q.timeoutMs });
    const now = Date.now() / 1000;
    const ids = q.jobIds?.length ? new Set(q.jobIds) : undefined;
    return jobs.filter(
      (j) =>
        (!ids || ids.has(j.id)) &&
        (q.startTime === undefined || (j.endTime ?? now) >= q.startTime) &&
        (q.endTime === undefined || (j.startTime ?? j.submitTime ?? now) <= q.endTime),
    );
  }
}
