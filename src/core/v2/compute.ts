/** v2 compute routes (§3.3): submit, list, inspect, cancel, attach. */
import type { CallOptions, JobListOptions } from '../api';
import { NotFoundError, NotSupportedError } from '../errors';
import { checkDependency, withDirectives } from '../jobScript';
import type { ApiHttp } from '../http/apiHttp';
import type { Job, JobMetadata, JobSubmission } from '../model';
import { parseBody } from './parse';
import { toJob } from './translate';
import { JobsW, MetadataW, SubmitW } from './wire';

const JOBS = '/compute/{system}/jobs';
const JOB = '/compute/{system}/jobs/{jobId}';

/** The compute router of one connection. */
export class ComputeRoutes {
  constructor(private readonly http: ApiHttp) {}

  /** Returns the scheduler's job id (a string since 2.5.0). */
  async submit(system: string, s: JobSubmission, call?: CallOptions): Promise<string> {
    // v2 has no field for a dependency: it goes into the script, which must then be inline.
    let script = s.script;
    if (s.dependency !== undefined) {
      if (script === undefined) throw new NotSupportedError('API v2 cannot add a dependency to a script already on the cluster; put an #SBATCH --dependency line in the script');
      script = withDirectives(script, [`#SBATCH --dependency=${checkDependency(s.dependency)}`]);
    }
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
    const res = await this.http.request({ method: 'POST', route: JOBS, params: { system }, json: { job }, expect: [201], call });
    return parseBody(SubmitW, res, `POST ${JOBS}`).jobId;
  }

  /** `account` is sent empty when unset, as the official client does. */
  async jobs(system: string, o: JobListOptions = {}): Promise<Job[]> {
    const query = { allusers: !!o.allUsers, account: o.account ?? '', name: o.name, time_window: o.timeWindow };
    const res = await this.http.request({ method: 'GET', route: JOBS, params: { system }, query, expect: [200], call: o });
    return (parseBody(JobsW, res, `GET ${JOBS}`).jobs ?? []).map(toJob);
  }

  async job(system: string, jobId: string, call?: CallOptions): Promise<Job> {
    const res = await this.http.request({ method: 'GET', route: JOB, params: { system, jobId }, expect: [200], call });
    const jobs = parseBody(JobsW, res, `GET ${JOB}`).jobs ?? [];
    if (!jobs.length) throw new NotFoundError(`Job ${jobId} not found`, { status: 200, route: `GET ${JOB}` });
    return toJob(jobs[0]);
  }

  async metadata(system: string, jobId: string, call?: CallOptions): Promise<JobMetadata> {
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
