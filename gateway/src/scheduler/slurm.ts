/**
 * The Slurm backend: every operation runs the real Slurm commands as the user (`setpriv` when the
 * gateway is root), the way FirecREST v2 runs them over SSH. Reservation management runs as the
 * gateway's own identity (root is a Slurm operator).
 */
import { readFile } from 'node:fs/promises';
import { systemSpawn } from '../exec';
import type { UnixUser } from '../users';
import type { SchedulerOptions } from './options';
import { queryJobs } from './slurm-jobs';
import { ROOT_USER, parseKeyValueLines, nullish, slurmOk, slurmRun, unexpected } from './slurm-run';
import { parseNodes, parsePartitions, parseReservations } from './slurm-status';
import { parseSbatchId, sbatchCall, submitStatus } from './slurm-submit';
import {
  SchedulerError, arrayFormId, isFinalState, namesJob, type JobMetadataRecord, type JobQuery, type JobRecord, type JobSpec, type NodeRecord, type PartitionRecord,
  type ReservationRecord, type ReservationSpec, type Scheduler,
} from './types';

const DAY = 86400;

/** `YYYY-MM-DDTHH:MM:SS` in the local time zone, which is how Slurm reads times on its command line. */
function slurmTime(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export class SlurmScheduler implements Scheduler {
  readonly kind = 'slurm' as const;
  readonly cluster: string;
  private versionText?: Promise<string>;
  private uidNames = new Map<number, string>();
  private passwd?: Promise<void>;

  constructor(readonly options: SchedulerOptions) { this.cluster = options.cluster; }

  version(): Promise<string> {
    this.versionText ??= slurmOk(ROOT_USER, ['sinfo', '--version']).then((out) => /(\d+\.\d+\.\d+\S*)/.exec(out)?.[1] ?? out.trim())
      .catch((e: unknown) => { this.versionText = undefined; throw e; });
    return this.versionText;
  }

  /** `scontrol ping`: healthy only when every controller it lists is UP (as the real health check reads it). */
  async ping(): Promise<void> {
    const out = await slurmOk(ROOT_USER, ['scontrol', 'ping'], { timeoutSeconds: 10 });
    const states = [...out.matchAll(/\bis\s+(\S+)/g)].map((m) => m[1].toUpperCase());
    if (states.length === 0 || states.some((st) => st !== 'UP')) throw new SchedulerError(out.trim() || 'scontrol ping gave no answer');
  }

  async start(): Promise<void> {
    const out = await slurmRun(ROOT_USER, ['sinfo', '-h', '-o', '%t'], { timeoutSeconds: 5 });
    if (out.exitCode !== 0) throw unexpected(out);
  }

  /** Slurm belongs to the machine, not to the gateway: nothing to stop. */
  async stop(): Promise<void> { /* nothing started */ }

  async submit(user: UnixUser, spec: JobSpec): Promise<string> {
    const call = sbatchCall(spec);
    const out = await slurmRun(user, call.argv, { stdin: call.stdin, env: call.env });
    if (out.exitCode !== 0) {
      const status = submitStatus(out.stderr);
      if (status === 403) {
        throw new SchedulerError(`Job submission rejected: accounting/QOS policy limit exceeded. ${out.stderr.trim()}`, 403, out.stderr.trim());
      }
      throw unexpected(out, status);
    }
    const id = parseSbatchId(out.stdout);
    if (!id) throw new SchedulerError('Unable to submit new job', 500, out.stderr.trim());
    return id;
  }

  async list(user: UnixUser, query: JobQuery): Promise<JobRecord[]> {
    const window = query.finishedWithinSeconds ?? DAY;
    const sacctArgs = query.jobIds?.length ? [] : [`--starttime=now-${Math.max(1, Math.floor(window))}seconds`];
    await this.names();
    return queryJobs(user, query, { squeue: true, sacctArgs }, this.cluster, this.userOf);
  }

  async get(user: UnixUser, jobId: string): Promise<JobRecord | undefined> {
    return (await this.lookup(user, jobId)).find((j) => j.jobId === jobId || arrayFormId(j) === jobId);
  }

  async lookup(user: UnixUser, jobId: string): Promise<JobRecord[]> {
    if (!/^\d+(_\d+)?$/.test(jobId)) return [];
    await this.names();
    // squeue and sacct given an array's id list all its tasks.
    const jobs = await queryJobs(user, { jobIds: [jobId] }, { squeue: true, sacctArgs: [] }, this.cluster, this.userOf);
    return jobs.filter((j) => namesJob(j, jobId));
  }

  async accounting(user: UnixUser, query: JobQuery): Promise<JobRecord[]> {
    const args: string[] = [];
    if (query.startTime !== undefined) args.push(`--starttime=${slurmTime(query.startTime)}`);
    else if (!query.jobIds?.length) args.push(`--starttime=now-${query.finishedWithinSeconds ?? DAY}seconds`);
    if (query.endTime !== undefined) args.push(`--endtime=${slurmTime(query.endTime)}`);
    await this.names();
    // Upstream v1 runs `sacct -X`: allocations only, no steps.
    return queryJobs(user, query, { squeue: false, sacctArgs: args, allocationsOnly: true }, this.cluster, this.userOf);
  }

  async metadata(user: UnixUser, jobId: string): Promise<JobMetadataRecord | undefined> {
    if (!/^\d+$/.test(jobId)) return undefined;
    const [show, script] = await Promise.all([
      slurmRun(user, ['scontrol', 'show', 'job', '-o', jobId]),
      slurmRun(user, ['scontrol', 'write', 'batch_script', jobId, '-']),
    ]);
    if (show.exitCode !== 0) {
      if (/Invalid job id/i.test(show.stderr)) return undefined;
      throw unexpected(show);
    }
    const job = parseKeyValueLines(show.stdout).find((m) => m.get('JobId') === jobId);
    if (!job) return undefined;
    return {
      jobId,
      // Another user's script is not readable (Access/permission denied): the job is still shown.
      script: script.exitCode === 0 ? script.stdout : null,
      standardInput: nullish(job.get('StdIn')),
      standardOutput: nullish(job.get('StdOut')),
      standardError: nullish(job.get('StdErr')),
    };
  }

  /**
   * Unknown job: 404 `Job not found`. Any other scancel failure (another user's job answers
   * `Access/permission denied`) is a 500 `Unexpected Slurm command response...`, as the real v2
   * server raises it as a SlurmError. scancel reports some errors with exit status 0, so stderr is
   * checked too. Cancelling a job that already ended does nothing (as the local backend does).
   */
  async cancel(user: UnixUser, jobId: string): Promise<void> {
    const jobs = await this.lookup(user, jobId);
    if (!jobs.length) throw new SchedulerError('Job not found', 404);
    // (An array's id cancels every task: done only when all of them are.)
    if (jobs.every((j) => isFinalState(j.status.state) && (j.user === user.name || user.uid === 0))) return;
    // Slurm 22.05's scancel refuses an array task's own id ("Invalid job id specified"): it takes `12_3`.
    const task = /^\d+$/.test(jobId) ? jobs.find((j) => j.jobId === jobId && j.arrayJobId && j.arrayJobId !== jobId) : undefined;
    const out = await slurmRun(user, ['scancel', '--verbose', task ? arrayFormId(task) : jobId]);
    if (/Invalid job id specified/i.test(out.stderr)) throw new SchedulerError('Job not found', 404, out.stderr.trim());
    if (/already completing or completed/i.test(out.stderr)) return;
    if (out.exitCode !== 0 || /.+error:.*/i.test(out.stderr)) throw unexpected(out);
  }

  async attach(user: UnixUser, jobId: string, command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const out = await slurmRun(user, ['srun', '--overlap', `--jobid=${jobId}`, '--quiet', 'bash', '-c', command],
      { timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) });
    if (out.exitCode !== 0 && /Invalid job id/i.test(out.stderr)) throw new SchedulerError('Job not found', 404, out.stderr.trim());
    return out;
  }

  async partitions(user: UnixUser): Promise<PartitionRecord[]> {
    return parsePartitions(await slurmOk(user, ['scontrol', 'show', 'partition', '-o']));
  }

  async nodes(user: UnixUser): Promise<NodeRecord[]> {
    return parseNodes(await slurmOk(user, ['scontrol', 'show', 'node', '-o']));
  }

  async reservations(user: UnixUser): Promise<ReservationRecord[]> {
    return parseReservations(await slurmOk(user, ['scontrol', 'show', 'reservation', '-o']));
  }

  async accounts(user: UnixUser): Promise<{ name: string; default: boolean }[]> {
    const [assoc, def] = await Promise.all([
      slurmOk(user, ['sacctmgr', '--noheader', '--parsable2', 'show', 'assoc', `user=${user.name}`, 'format=account']),
      slurmRun(user, ['sacctmgr', '--noheader', '--parsable2', 'show', 'user', user.name, 'format=defaultaccount']),
    ]);
    const defaultAccount = def.exitCode === 0 ? def.stdout.trim().split('\n')[0]?.trim() : undefined;
    const names = [...new Set(assoc.split('\n').map((l) => l.trim()).filter(Boolean))];
    return names.map((name) => ({ name, default: name === defaultAccount }));
  }

  async createReservation(spec: ReservationSpec): Promise<void> {
    await this.manageReservation(['create', 'reservation', ...this.reservationArgs(spec, true)]);
  }

  /**
   * Slurm refuses any `Features=` in an update ("Requested operation not supported on this
   * system"), even the reservation's own: the node type is sent only when it would change.
   */
  async updateReservation(spec: ReservationSpec): Promise<void> {
    let update = spec;
    if (spec.nodeType) {
      const now = parseReservations(await slurmOk(ROOT_USER, ['scontrol', 'show', 'reservation', '-o', spec.name])).find((r) => r.name === spec.name);
      if (now?.features === spec.nodeType) update = { ...spec, nodeType: undefined };
    }
    await this.manageReservation(['update', ...this.reservationArgs(update, false)]);
  }

  async deleteReservation(name: string): Promise<void> {
    await this.manageReservation(['delete', `ReservationName=${name}`]);
  }

  private reservationArgs(spec: ReservationSpec, creating: boolean): string[] {
    const args = [`ReservationName=${spec.name}`, `StartTime=${slurmTime(spec.startTime)}`, `EndTime=${slurmTime(spec.endTime)}`];
    if (spec.account) args.push(`Accounts=${spec.account}`);
    if (spec.users?.length) args.push(`Users=${spec.users.join(',')}`);
    if (spec.numberOfNodes !== undefined) args.push(`NodeCnt=${spec.numberOfNodes}`);
    if (spec.nodeType) args.push(`Features=${spec.nodeType}`);
    // Like a site's reservation tool, a reservation may be planned over nodes that run jobs now
    // (Slurm refuses "Requested nodes are busy" otherwise whenever any job overlaps the window).
    const flags = [...(spec.flags ?? []), ...(creating && !spec.flags?.includes('IGNORE_JOBS') ? ['IGNORE_JOBS'] : [])];
    if (flags.length) args.push(`Flags=${flags.join(',')}`);
    // Slurm needs a size; without a node count the reservation covers every node.
    if (creating && spec.numberOfNodes === undefined) args.push('Nodes=ALL');
    return args;
  }

  /** Operator commands; Slurm's refusal text comes back as a 400. */
  private async manageReservation(args: string[]): Promise<void> {
    const out = await slurmRun(ROOT_USER, ['scontrol', ...args]);
    if (out.exitCode !== 0) {
      const text = (out.stderr.trim() || out.stdout.trim()).replace(/^scontrol: error: /gm, '');
      throw new SchedulerError(text || `scontrol exited with status ${out.exitCode}`, 400, out.stderr.trim());
    }
  }

  /** uid -> user name for `CANCELLED by <uid>`; a miss re-reads the passwd database on the next query. */
  private userOf = (uid: number): string | null => {
    const known = this.uidNames.get(uid);
    if (known === undefined) this.passwd = undefined;
    return known ?? null;
  };

  private names(): Promise<void> {
    this.passwd ??= readFile('/etc/passwd', 'utf8').then((text) => {
      for (const line of text.split('\n')) {
        const [name, , uid] = line.split(':');
        if (name && uid !== undefined && /^\d+$/.test(uid)) this.uidNames.set(Number(uid), name);
      }
    }, () => undefined);
    return this.passwd;
  }
}

/** True when a Slurm controller answers `sinfo` within a couple of seconds. */
export function slurmAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof systemSpawn>;
    try {
      child = systemSpawn('sinfo', ['-h', '-o', '%t'], { stdio: 'ignore', timeout: 3000 });
    } catch {
      resolve(false);
      return;
    }
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
