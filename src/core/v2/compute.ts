/** v2 compute routes (§3.3): submit, list, inspect, cancel, attach. */
import type { CallOptions, JobListOptions } from '../api';
import { NotFoundError, NotSupportedError, ServerError } from '../errors';
import { arrayInfo, foldArrayTwins, pickJob } from '../jobArrays';
import { checkDependency, withDirectives } from '../jobScript';
import type { ApiHttp } from '../http/apiHttp';
import type { Job, JobMetadata, JobSubmission } from '../model';
import { parseJobs } from './jobEntries';
import { parseBody } from './parse';
import { MetadataW, SubmitW } from './wire';

const JOBS = '/compute/{system}/jobs';
/** How long a submission may wait for its answer unless the caller says otherwise. */
export const SUBMIT_TIMEOUT_MS = 180_000;
const JOB = '/compute/{system}/jobs/{jobId}';

/** The compute router of one connection. */
export class ComputeRoutes {
  constructor(private readonly http: ApiHttp) {}

  /**
   * The script text a submission sends (undefined for a script on the cluster). v2 has no field for
   * a dependency: it goes into the script, which must then be inline.
   */
  static scriptOf(s: JobSubmission): string | undefined {
    if (s.dependency === undefined) return s.script;
    if (s.script === undefined) throw new NotSupportedError('API v2 cannot add a dependency to a script already on the cluster; put an #SBATCH --dependency line in the script');
    return withDirectives(s.script, [`#SBATCH --dependency=${checkDependency(s.dependency)}`]);
  }

  /** Returns the scheduler's job id (a string since 2.5.0). */
  async submit(system: string, s: JobSubmission, call?: CallOptions): Promise<string> {
    const script = ComputeRoutes.scriptOf(s);
    const job = {
      name: s.name,
      workingDirectory: s.workingDirectory,
      script,
      scriptPath: s.scriptPath,
      env: s.env,
      account: s.account,
      partition: s.partition,
      reservation: s.reservation,
      standardInput: s.stdinPath,
      standardOutput: s.stdoutPath,
      standardError: s.stderrPath,
      constraints: s.constraints,
    };
    // sbatch of a large array can take the server a minute: a submission waits longer than a read.
    const res = await this.http.request({ method: 'POST', route: JOBS, params: { system }, json: { job }, expect: [201], call: { ...call, timeoutMs: call?.timeoutMs ?? SUBMIT_TIMEOUT_MS } });
    return parseBody(SubmitW, res, `POST ${JOBS}`).jobId;
  }

  /** `account` is sent empty when unset, as the official client does. */
  async jobs(system: string, o: JobListOptions = {}): Promise<Job[]> {
    const query = { allusers: !!o.allUsers, account: o.account ?? '', name: o.name, time_window: o.timeWindow };
    const res = await this.http.request({ method: 'GET', route: JOBS, params: { system }, query, expect: [200], listing: true, call: o });
    return foldArrayTwins(parseJobs(res, `GET ${JOBS}`));
  }

  /** Every row the server gives for an id (an array's id: all its tasks, in both their forms). */
  async jobRows(system: string, jobId: string, call?: CallOptions): Promise<Job[]> {
    const res = await this.http.request({ method: 'GET', route: JOB, params: { system, jobId }, expect: [200], call });
    return parseJobs(res, `GET ${JOB}`);
  }

  /**
   * One job; for an array's id, the array as a whole (`arraySummary`). A task's `12_3` is not a
   * v2 path: it is found among its array's rows.
   */
  async job(system: string, jobId: string, call?: CallOptions): Promise<Job> {
    const task = arrayInfo(jobId);
    const job = pickJob(jobId, await this.jobRows(system, task ? task.jobId : jobId, call));
    if (!job) throw new NotFoundError(`Job ${jobId} not found`, { status: 200, route: `GET ${JOB}` });
    return job;
  }

  /**
   * One task of an array. A v2 path takes no `12_3`, only the task's own numeric id, which the
   * server lists while the task is queued or running. That id is checked first (the server must
   * show it as this task), and the array's own id is never used (it cancels every task).
   */
  async cancelTask(system: string, task: Job, call?: CallOptions): Promise<void> {
    const a = task.array;
    if (!a || (a.taskId === undefined && a.pending === undefined)) throw new NotSupportedError(`${task.id} is not a task of an array`);
    const instead = `cancel the whole array (${a.jobId}) instead`;
    if (task.isFinal) return;
    if (a.taskId === undefined) throw new NotSupportedError(`The tasks of array ${a.jobId} that have not started (${a.pending}) cannot be cancelled apart from the others through FirecREST API v2, which takes plain job ids only. You can ${instead}.`);
    const name = `${a.jobId}_${a.taskId}`;
    if (!task.ownId || task.ownId === a.jobId) {
      throw new NotSupportedError(`Task ${name} cannot be cancelled on its own through FirecREST API v2: v2 takes a task only by its own job id, and the server has not listed one for it. You can ${instead}.`);
    }
    const rows = await this.jobRows(system, task.ownId, call);
    if (!rows.some((r) => r.id === name)) {
      throw new NotSupportedError(`Task ${name} cannot be cancelled on its own: job ${task.ownId} is no longer that task on the server. Refresh the Jobs view, or ${instead}.`);
    }
    try {
      await this.cancel(system, task.ownId, call);
    } catch (e) {
      // Slurm's scancel refuses a task's own id; upstream servers pass it on unchanged (500).
      if ((e instanceof ServerError || e instanceof NotFoundError) && /Invalid job id/i.test(e.message)) {
        throw new NotSupportedError(`This server's scheduler refuses task ${name} by its own job id (${task.ownId}), and FirecREST API v2 does not accept ${name}. You can ${instead}.`, { cause: e });
      }
      throw e;
    }
  }

  /** A task's (`12_3`) is asked for under its own id, where the server lists one. */
  async metadata(system: string, jobId: string, call?: CallOptions): Promise<JobMetadata> {
    if (arrayInfo(jobId)) {
      const task = await this.job(system, jobId, call);
      if (!task.ownId || task.ownId === task.array?.jobId) throw new NotSupportedError(`FirecREST API v2 gives the script and files of task ${jobId} only under its own job id, which the server lists only while the task is queued or running`);
      return { ...(await this.metadata(system, task.ownId, call)), id: jobId };
    }
    const route = `${JOB}/metadata`;
    const res = await this.http.request({ method: 'GET', route, params: { system, jobId }, expect: [200], call });
    const m = parseBody(MetadataW, res, `GET ${route}`).jobs[0];
    if (!m) throw new NotFoundError(`Job ${jobId} not found`, { status: 200, route: `GET ${route}` });
    return { id: m.jobId, script: m.script ?? undefined, stdinPath: m.standardInput ?? undefined, stdoutPath: m.standardOutput ?? undefined, stderrPath: m.standardError ?? undefined };
  }

  async cancel(system: string, jobId: string, call?: CallOptions): Promise<void> {
    await this.http.request({ method: 'DELETE', route: JOB, params: { system, jobId }, expect: [204], call });
  }

  async attach(system: string, jobId: string, command: string, call?: CallOptions): Promise<void> {
    await this.http.request({ method: 'PUT', route: `${JOB}/attach`, params: { system, jobId }, json: { command }, expect: [204], call });
  }
}
