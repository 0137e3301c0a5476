/**
 * The built-in scheduler for machines without Slurm: one node with one slot per CPU, FIFO with
 * Slurm's pending reasons, `afterok` dependencies, time limits (SIGTERM, then SIGKILL after a grace
 * period), cancellation, reservations, and a job history and id counter that survive restarts.
 * Jobs run as the submitting user (see local-runner.ts).
 */
import { cpus, hostname } from 'node:os';
import { killGroup, runAs } from '../exec';
import type { UnixUser } from '../users';
import type { SchedulerOptions } from './options';
import { slurmEnv } from './local-env';
import { planQueue } from './local-queue';
import { jobRecord, isFinal, matchesQuery, reservationActive, reservationRecord } from './local-records';
import * as res from './local-resources';
import { JobRunner, type JobExit } from './local-runner';
import { LocalStateStore, type LocalJob, type LocalReservation, type LocalStateData } from './local-state';
import { expandPaths, resolveSubmission } from './local-submit';
import {
  SchedulerError, type JobMetadataRecord, type JobQuery, type JobRecord, type JobSpec, type NodeRecord,
  type PartitionRecord, type ReservationRecord, type ReservationSpec, type Scheduler,
} from './types';

/** Grace between SIGTERM and SIGKILL on time-out and cancel (Slurm's KillWait). */
const KILL_WAIT_MS = 5000;
/** Longest delay a node timer takes; longer limits are not enforced (they outlive any test run). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a script stays readable (job metadata) after its job or array ended: Slurm's MinJobAge. */
const SCRIPT_KEEP_SECONDS = 300;

/** The script a job runs is stored once per submission: an array's tasks share their array's. */
function scriptKey(job: LocalJob): number {
  return job.array?.jobId ?? job.id;
}

/** A typed Object.assign: a misspelt field or state is a compile error. */
function update(job: LocalJob, patch: Partial<LocalJob>): void {
  Object.assign(job, patch);
}

interface Control {
  pid: number;
  exited: Promise<JobExit>;
  timers: NodeJS.Timeout[];
}

export class LocalScheduler implements Scheduler {
  readonly kind = 'local' as const;
  readonly cluster: string;
  private readonly store: LocalStateStore;
  private readonly runner = new JobRunner();
  private readonly node = hostname().split('.')[0] || 'localhost';
  private readonly cpuCount = Math.max(1, cpus().length);
  private readonly partitionList: res.PartitionConfig[];
  private readonly jobs = new Map<number, LocalJob>();
  /** Script text per submission (`scriptKey`) while any of its jobs has not ended (the copy on disk serves restarts). */
  private readonly scripts = new Map<number, string>();
  /** Jobs not ended yet per submission: its script is stored until the last one ends. */
  private readonly unfinished = new Map<number, number>();
  /** When the stored script of an ended submission is removed. */
  private readonly scriptExpiry = new Map<number, number>();
  private readonly running = new Map<number, Control>();
  /** When each pending job got its current reason (in memory only). */
  private readonly reasonSince = new Map<number, number>();
  private reservationList: LocalReservation[] = [];
  private lastJobId = 0;
  private ticker: NodeJS.Timeout | null = null;
  private started = false;
  private readonly scriptKeepMs: number;

  constructor(readonly options: SchedulerOptions) {
    this.cluster = options.cluster;
    this.store = new LocalStateStore(options.stateDir);
    this.partitionList = options.partitions?.length ? options.partitions : res.DEFAULT_PARTITIONS;
    this.scriptKeepMs = (options.scriptKeepSeconds ?? SCRIPT_KEEP_SECONDS) * 1000;
  }

  async version(): Promise<string> {
    return 'local-1.0';
  }

  async ping(): Promise<void> {
    if (!this.started) throw new SchedulerError('The built-in scheduler is not running');
  }

  async start(): Promise<void> {
    if (this.started) return;
    const data = await this.store.load(() => this.snapshot());
    this.lastJobId = data.lastJobId;
    const nowSec = Math.floor(Date.now() / 1000);
    this.reservationList = data.reservations
      ?? (this.options.reservations ? this.options.reservations.map((r) => ({ ...r, accounts: [] })) : res.defaultReservations(nowSec));
    for (const job of data.jobs) {
      this.jobs.set(job.id, job);
      // A job that was running when the gateway went away lost its node: NODE_FAIL, as in Slurm.
      if (job.state === 'RUNNING') {
        if (job.pid !== null) this.runner.reapOrphan(job.pid, job.pidStart);
        update(job, { state: 'NODE_FAIL', reason: 'NodeDown', endTime: Date.now(), pid: null, pidStart: null });
      } else if (job.state === 'PENDING') {
        const key = scriptKey(job);
        const script = this.scripts.get(key) ?? await this.store.readScript(key);
        if (script === null) update(job, { state: 'FAILED', reason: 'SystemFailure', endTime: Date.now(), exitCode: 1 });
        else {
          this.scripts.set(key, script);
          this.unfinished.set(key, (this.unfinished.get(key) ?? 0) + 1);
        }
      }
    }
    // Every other stored script (ended submissions, and the per-task copies of older state dirs)
    // goes once it has been readable for as long as an ended job's would be.
    const expiry = Date.now() + this.scriptKeepMs;
    for (const key of await this.store.scriptKeys()) if (!this.unfinished.has(key)) this.scriptExpiry.set(key, expiry);
    this.runner.open();
    this.started = true;
    // Reservations begin and end with the clock, so pending jobs are looked at again every second.
    this.ticker = setInterval(() => {
      this.schedule();
      this.expireScripts();
    }, 1000);
    this.ticker.unref();
    await this.store.save();
    this.schedule();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    const now = Date.now();
    const exits: Promise<JobExit>[] = [];
    for (const [id, ctl] of this.running) {
      const job = this.jobs.get(id);
      if (job) update(job, { state: 'NODE_FAIL', reason: 'NodeDown', endTime: now });
      killGroup(ctl.pid, 'SIGKILL');
      exits.push(ctl.exited);
    }
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 3000).unref())]);
    this.runner.close();
    await this.store.save();
    await this.store.flush();
  }

  async submit(user: UnixUser, spec: JobSpec): Promise<string> {
    this.assertStarted();
    const now = Date.now();
    const sub = await resolveSubmission(user, spec, {
      partitions: this.partitionList,
      reservations: this.reservationList,
      defaultAccount: (u) => res.accountsFor(u).find((a) => a.default)?.name ?? 'proj',
      knownJob: (id) => this.jobs.has(id),
    }, now);
    const { script, patterns: _patterns, array, ...fields } = sub;
    // An array is one job per index, with ids in a row. As in Slurm, the array's id (what sbatch
    // prints) ends up on the last task, and the others have the ids after it in index order.
    // The ids are taken before the first await: submissions run concurrently.
    const indexes = array?.indexes ?? [undefined];
    const first = this.lastJobId + 1;
    this.lastJobId += indexes.length;
    const jobs = indexes.map((taskId, i): LocalJob => {
      const id = i === indexes.length - 1 ? first : first + 1 + i;
      const task = array && taskId !== undefined
        ? { jobId: first, taskId, count: array.indexes.length, min: array.indexes[0], max: array.indexes[array.indexes.length - 1], limit: array.limit }
        : undefined;
      return { id, ...fields, ...expandPaths(sub, id, this.node, task), ...(task ? { array: task } : {}) };
    });
    // One copy for the whole submission, however many tasks the array has.
    await this.store.saveScript(first, script);
    this.scripts.set(first, script);
    this.unfinished.set(first, jobs.length);
    // All of an array's tasks appear at once.
    for (const job of jobs) this.jobs.set(job.id, job);
    this.schedule();
    // The id is handed out only once it is on disk, so a restart can never hand it out again.
    await this.store.save();
    return String(first);
  }

  async list(user: UnixUser, query: JobQuery): Promise<JobRecord[]> {
    const now = Date.now();
    return this.select(user, query).filter((j) =>
      query.finishedWithinSeconds === undefined || j.endTime === null || j.endTime >= now - query.finishedWithinSeconds * 1000,
    ).map((j) => this.record(j, now));
  }

  async accounting(user: UnixUser, query: JobQuery): Promise<JobRecord[]> {
    const now = Date.now();
    // sacct -S/-E: jobs that existed at some point of the window.
    return this.select(user, query).filter((j) =>
      (query.startTime === undefined || (j.endTime ?? now) >= query.startTime * 1000)
      && (query.endTime === undefined || j.submitTime <= query.endTime * 1000),
    ).map((j) => this.record(j, now));
  }

  async get(_user: UnixUser, jobId: string): Promise<JobRecord | undefined> {
    const job = this.find(jobId);
    return job && this.record(job, Date.now());
  }

  async lookup(_user: UnixUser, jobId: string): Promise<JobRecord[]> {
    const now = Date.now();
    return this.named(jobId).map((j) => this.record(j, now));
  }

  async metadata(user: UnixUser, jobId: string): Promise<JobMetadataRecord | undefined> {
    const job = this.find(jobId);
    if (!job) return undefined;
    // Like `scontrol write batch_script`: only the owner (or root) may read the script.
    const mayRead = user.uid === 0 || user.uid === job.user.uid;
    const key = scriptKey(job);
    const script = mayRead ? (this.scripts.get(key) ?? await this.store.readScript(key)) : null;
    return { jobId: String(job.id), script, standardInput: job.stdin, standardOutput: job.stdout, standardError: job.stderr };
  }

  async cancel(user: UnixUser, jobId: string): Promise<void> {
    // An array's id cancels every task of it, as scancel does.
    const jobs = this.named(jobId);
    if (!jobs.length) throw new SchedulerError('Job not found', 404);
    const foreign = jobs.find((j) => user.uid !== 0 && user.uid !== j.user.uid);
    if (foreign) {
      // The v2 server maps only `Permission denied`/`Operation not permitted` to 403; scancel's
      // text has neither, so the real server answers 500 with the Slurm error.
      const text = `scancel: error: Kill job error on job id ${jobId}: Access/permission denied`;
      throw new SchedulerError(`Unexpected Slurm command response. exit_status:1 std_err:${text}`, 500, text);
    }
    const now = Date.now();
    for (const job of jobs) {
      if (isFinal(job)) continue;
      update(job, { state: 'CANCELLED', reason: 'None', endTime: now, killRequestUser: user.name, killRequestUid: user.uid });
      this.ended(job);
      const ctl = this.running.get(job.id);
      if (ctl) {
        killGroup(ctl.pid, 'SIGTERM');
        ctl.timers.push(setTimeout(() => killGroup(ctl.pid, 'SIGKILL'), KILL_WAIT_MS));
      } else {
        this.reasonSince.delete(job.id);
      }
    }
    this.schedule();
    await this.store.save();
  }

  async attach(user: UnixUser, jobId: string, command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const job = this.find(jobId);
    if (!job) throw new SchedulerError('Job not found', 404);
    const prefix = `srun: error: Unable to confirm allocation for job ${job.id}`;
    if (user.uid !== 0 && user.uid !== job.user.uid) throw new SchedulerError(`${prefix}: Access/permission denied`, 403);
    if (job.state !== 'RUNNING') {
      const why = job.state === 'PENDING' ? 'Job is pending execution' : 'Job/step already completing or completed';
      throw new SchedulerError(`${prefix}: ${why}`, 400);
    }
    const r = await runAs(job.user, ['bash', '-c', 'cd -- "$1" || exit 1; exec bash -c "$2"', 'srun', job.workingDirectory, command], {
      cwd: '/',
      timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
      maxOutputBytes: 5 * 1024 * 1024,
      env: { ...job.env, ...slurmEnv(job, this.cluster, this.node) },
    });
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), exitCode: r.exitCode ?? 128 };
  }

  async partitions(_user: UnixUser): Promise<PartitionRecord[]> {
    return res.partitionRecords(this.partitionList, this.cpuCount, this.node);
  }

  async nodes(_user: UnixUser): Promise<NodeRecord[]> {
    const nowSec = Math.floor(Date.now() / 1000);
    const reserved = this.reservationList.some((r) => reservationActive(r, nowSec));
    return [res.nodeRecord(this.node, this.cpuCount, this.running.size, reserved, this.partitionList)];
  }

  async reservations(_user: UnixUser): Promise<ReservationRecord[]> {
    const nowSec = Math.floor(Date.now() / 1000);
    return this.reservationList.map((r) => reservationRecord(r, this.node, nowSec));
  }

  async accounts(user: UnixUser): Promise<{ name: string; default: boolean }[]> {
    return res.accountsFor(user);
  }

  async createReservation(spec: ReservationSpec): Promise<void> {
    this.reservationList = res.createReservation(this.reservationList, spec);
    await this.reservationsChanged();
  }

  async updateReservation(spec: ReservationSpec): Promise<void> {
    this.reservationList = res.updateReservation(this.reservationList, spec);
    await this.reservationsChanged();
  }

  async deleteReservation(name: string): Promise<void> {
    this.reservationList = res.deleteReservation(this.reservationList, name);
    await this.reservationsChanged();
  }

  private async reservationsChanged(): Promise<void> {
    this.schedule();
    await this.store.save();
  }

  private assertStarted(): void {
    if (!this.started) throw new SchedulerError('Error executing Slurm command.', 500);
  }

  /** One job by its own id, or an array task by `12_3`. */
  private find(jobId: string): LocalJob | undefined {
    if (/^\d+$/.test(jobId)) return this.jobs.get(Number(jobId));
    const m = /^(\d+)_(\d+)$/.exec(jobId);
    return m ? [...this.jobs.values()].find((j) => j.array?.jobId === Number(m[1]) && j.array.taskId === Number(m[2])) : undefined;
  }

  /** What an id names: the job, or every task of the array it is the id of. */
  private named(jobId: string): LocalJob[] {
    const one = this.find(jobId);
    if (!one) return [];
    if (!/^\d+$/.test(jobId) || one.array?.jobId !== one.id) return [one];
    return [...this.jobs.values()].filter((j) => j.array?.jobId === one.id);
  }

  private record(job: LocalJob, now: number): JobRecord {
    return jobRecord(job, this.cluster, this.node, now);
  }

  private select(user: UnixUser, query: JobQuery): LocalJob[] {
    return [...this.jobs.values()].filter((j) => matchesQuery(j, user, query)).sort((a, b) => a.id - b.id);
  }

  private snapshot(): LocalStateData {
    return { version: 1, lastJobId: this.lastJobId, jobs: [...this.jobs.values()], reservations: this.reservationList };
  }

  /** Starts what can start, and gives every job still pending its Slurm reason. */
  private schedule(): void {
    if (!this.started) return;
    const now = Date.now();
    const plan = planQueue(this.jobs, this.reservationList, this.cpuCount - this.running.size, this.reasonSince, now);
    for (const job of plan.cancel) {
      update(job, { state: 'CANCELLED', endTime: now });
      this.ended(job);
      this.reasonSince.delete(job.id);
    }
    for (const job of plan.start) this.launch(job, now);
    let changed = plan.cancel.length + plan.start.length > 0;
    for (const [job, reason] of plan.reasons) {
      changed ||= job.reason !== reason;
      job.reason = reason;
      this.reasonSince.set(job.id, now);
    }
    if (changed) void this.store.save();
  }

  private launch(job: LocalJob, now: number): void {
    const script = this.scripts.get(scriptKey(job)) ?? '';
    this.reasonSince.delete(job.id);
    update(job, { state: 'RUNNING', reason: 'None', startTime: now });
    let started;
    try {
      started = this.runner.start({
        id: job.id, user: job.user, script, workingDirectory: job.workingDirectory,
        stdout: job.stdout, stderr: job.stderr, stdin: job.stdin, env: { ...job.env, ...slurmEnv(job, this.cluster, this.node) },
      }, (text) => console.error(`[local-scheduler] job ${job.id}: ${text}`));
    } catch (e) {
      console.error(`[local-scheduler] job ${job.id} could not start: ${(e as Error).message}`);
      update(job, { state: 'FAILED', reason: 'JobLaunchFailure', endTime: now, exitCode: 1, signal: 0 });
      this.ended(job);
      return;
    }
    job.pid = started.pid;
    job.pidStart = started.pidStart;
    const ctl: Control = { pid: started.pid, exited: started.exited, timers: [] };
    if (job.timeLimit !== null && job.timeLimit * 1000 <= MAX_TIMER_MS) {
      ctl.timers.push(setTimeout(() => {
        if (job.state !== 'RUNNING') return;
        // Slurm shows TIMEOUT from the moment the limit passes, while the processes are still dying.
        update(job, { state: 'TIMEOUT', reason: 'TimeLimit', endTime: Date.now(), exitCode: 0 });
        this.ended(job);
        void this.store.save();
        killGroup(ctl.pid, 'SIGTERM');
        ctl.timers.push(setTimeout(() => killGroup(ctl.pid, 'SIGKILL'), KILL_WAIT_MS));
      }, job.timeLimit * 1000));
    }
    this.running.set(job.id, ctl);
    void started.exited.then((exit) => this.finished(job, ctl, exit));
  }

  /** Once per job, when it reaches a final state: the last job of a submission starts its script's expiry. */
  private ended(job: LocalJob): void {
    const key = scriptKey(job);
    const left = (this.unfinished.get(key) ?? 1) - 1;
    if (left > 0) {
      this.unfinished.set(key, left);
      return;
    }
    this.unfinished.delete(key);
    this.scripts.delete(key);
    this.scriptExpiry.set(key, Date.now() + this.scriptKeepMs);
  }

  /** Removes the stored scripts whose submissions ended long enough ago. */
  private expireScripts(now = Date.now()): void {
    for (const [key, at] of this.scriptExpiry) {
      if (at > now) continue;
      this.scriptExpiry.delete(key);
      void this.store.removeScript(key);
    }
  }

  private finished(job: LocalJob, ctl: Control, exit: JobExit): void {
    for (const t of ctl.timers) clearTimeout(t);
    this.running.delete(job.id);
    job.pid = null;
    job.pidStart = null;
    if (job.state === 'RUNNING') {
      job.endTime = Date.now();
      if (exit.signal !== null) update(job, { state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 0, signal: exit.signal });
      else if (exit.exitCode === 0) update(job, { state: 'COMPLETED', reason: 'None', exitCode: 0, signal: 0 });
      else update(job, { state: 'FAILED', reason: 'NonZeroExitCode', exitCode: exit.exitCode ?? 1, signal: 0 });
      this.ended(job);
    } else if (job.state === 'CANCELLED' || job.state === 'TIMEOUT') {
      update(job, { exitCode: 0, signal: exit.signal ?? 15 });
    }
    if (!this.started) return; // stop() saves once every job is down
    this.schedule();
    void this.store.save();
  }
}
