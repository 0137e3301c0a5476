/**
 * v1 compute service (§2.5): every call answers with a task at once and does its work afterwards;
 * the task then reaches 200 with the data shapes of §2.7.4, or 400 with the error text.
 */
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { posix } from 'node:path';
import { runAs } from '../exec';
import { SchedulerError, withAccountingLag, type JobRecord } from '../scheduler/types';
import type { UnixUser } from '../users';
import type { SystemRuntime } from '../v2/context';
import { acctJob, inQueue, nodeShape, partitionShape, queueJob, reservationShape, type JobFiles } from './compute-shapes';
import { Fields, hasInvalidChar, machine, v1User, type V1Deps } from './context';
import { commandError, V1Error } from './errors';
import { paginate, parseSacctTime } from './paging';
import { parseEnv, submitJob, taskDir, writeScript } from './submit';
import { runTask, taskCreated } from './tasks';
import { upstream } from '../compat';

const JOB_ID = /^\d+([+_]\d+|_\[[\d,-]+\])?$/;

/** Last ~1000 bytes of a job's output file, as the user; "" when unreadable. */
async function tailOf(user: UnixUser, path: string | null): Promise<string> {
  if (!path) return '';
  const out = await runAs(user, ['tail', '-c', '1000', '--', path], { timeoutSeconds: 5, maxOutputBytes: 4096 }).catch(() => undefined);
  return out?.exitCode === 0 ? out.stdout.toString('utf8') : '';
}

async function filesOf(deps: V1Deps, user: UnixUser, job: JobRecord, own: boolean): Promise<JobFiles> {
  if (!own) return { job_file: '', job_file_out: '', job_file_err: '', job_data_out: '', job_data_err: '', job_info_extra: 'Job info not available for other users jobs' };
  const pending = job.status.state === 'PENDING';
  return {
    job_file: deps.jobFiles.get(job.arrayJobId ?? job.jobId) ?? 'command-not-found',
    job_file_out: job.standardOutput ?? 'stdout-file-not-found',
    job_file_err: job.standardError ?? job.standardOutput ?? 'stderr-file-not-found',
    job_data_out: pending ? '' : await tailOf(user, job.standardOutput),
    job_data_err: pending ? '' : await tailOf(user, job.standardError),
    job_info_extra: 'Job info returned successfully',
  };
}

function jobIds(q: Fields, name: string): string[] | undefined {
  const raw = q.raw(name);
  if (raw === undefined || raw === '') return undefined;
  const ids = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (hasInvalidChar(raw) || ids.some((id) => !JOB_ID.test(id))) throw q.invalid(`'${name}' has invalid char`);
  return ids;
}

function schedulerText(e: unknown): string {
  if (e instanceof SchedulerError) return e.stderr || e.message;
  return e instanceof Error ? e.message : String(e);
}

export async function computeRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const { tasks, settings } = deps;

  /** Machine check, then a task whose work runs after the answer. */
  const start = (req: FastifyRequest, description: string, work: (user: UnixUser, system: SystemRuntime, taskId: string) => Promise<unknown>) => {
    const system = machine(req, deps, 'compute', description);
    const user = v1User(req);
    const task = tasks.create(user.name, 'compute', system.name);
    runTask(tasks, task.task_id, () => work(user, system, task.task_id));
    return taskCreated(task);
  };

  app.get('/status', async () => ({ success: 'ack' }));

  app.post('/jobs/upload', async (req, reply) => {
    if (!req.isMultipart()) throw new V1Error(400, { description: 'Failed to submit job file', error: 'No batch file part' });
    const fields: Record<string, string> = {};
    let script: { name: string; data: Buffer } | undefined;
    for await (const part of req.parts({ limits: { fileSize: settings.maxOpsFileSize } })) {
      if (part.type === 'field') { fields[part.fieldname] ??= String(part.value); continue; }
      const file: MultipartFile = part;
      if (file.fieldname !== 'file' || script) { file.file.resume(); continue; }
      const data = await file.toBuffer().catch(() => undefined);
      if (!data || file.file.truncated) throw new V1Error(413, { description: 'Failed to submit job file', error: `Batch file is over ${settings.maxOpsFileSize} bytes` });
      script = { name: file.filename, data };
    }
    machine(req, deps, 'compute', 'Failed to submit job file');
    const f = new Fields(fields, 'Failed to submit job file');
    if (!script) throw f.invalid('No batch file part');
    // The real server passes the name through a "secure filename" filter.
    const name = posix.basename(script.name).replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '');
    if (!name) throw f.invalid('No batch file selected');
    if (script.data.length === 0) throw f.invalid('Batch file is empty');
    const account = f.optional('account');
    let env: Record<string, string>;
    try {
      env = parseEnv(f.raw('env'));
    } catch (e) {
      throw new V1Error(404, { description: 'Failed to submit job', error: `Invalid JSON in 'env' variable (${e instanceof Error ? e.message : String(e)})` });
    }
    const data = script.data;
    return reply.code(201).send(start(req, 'Failed to submit job file', async (user, system, taskId) => {
      const dir = taskDir(system, user, taskId);
      const path = await writeScript(user, dir, name, data, settings);
      const result = await submitJob(user, system, { scriptPath: path, workingDirectory: dir, account, env }, path);
      deps.jobFiles.set(String(result.jobid), path);
      return result;
    }));
  });

  app.post('/jobs/path', async (req, reply) => {
    const f = await Fields.form(req, 'Failed to submit job');
    machine(req, deps, 'compute', 'Failed to submit job');
    const path = f.required('targetPath');
    const account = f.optional('account');
    let env: Record<string, string>;
    try {
      env = parseEnv(f.raw('env'));
    } catch {
      throw new V1Error(404, { description: 'Failed to submit job', error: 'Invalid JSON environment provided' });
    }
    // The script must be readable and a file: the failure headers are the utilities ones.
    const check = await runAs(v1User(req), ['head', '-c', '1', '--', path], { timeoutSeconds: settings.commandTimeoutSeconds, maxOutputBytes: 4096 });
    if (check.exitCode !== 0) throw commandError('submit', check.exitCode ?? 1, check.stderr.toString('utf8'), false, 'Failed to submit job');
    return reply.code(201).send(start(req, 'Failed to submit job', async (user, system) => {
      const result = await submitJob(user, system, { scriptPath: path, workingDirectory: posix.dirname(path), account, env }, path);
      deps.jobFiles.set(String(result.jobid), path);
      return result;
    }));
  });

  app.get('/jobs', async (req) => {
    const q = Fields.query(req, 'Failed to retrieve jobs information');
    const ids = jobIds(q, 'jobs');
    // userJobs defaults to true; only an explicit false-like value lists every user's jobs.
    const userJobs = q.raw('userJobs') === undefined || q.bool('userJobs');
    return start(req, 'Failed to retrieve jobs information', async (user, system) => {
      const list = (await system.scheduler.list(user, { allUsers: !userJobs, jobIds: ids }))
        // squeue -u <user> when userJobs: a job id alone would also match another user's job.
        .filter((j) => inQueue(j) && (!userJobs || j.user === user.name));
      const page = paginate(list, q);
      const data: Record<string, unknown> = {};
      for (const [i, job] of page.entries()) data[String(i)] = queueJob(job, await filesOf(deps, user, job, job.user === user.name));
      return data;
    });
  });

  // Q3: the real server starts this worker with a wrong argument list, so its task never leaves 100.
  app.get<{ Params: { id: string } }>('/jobs/:id', async (req) => {
    const system = machine(req, deps, 'compute', 'Failed to retrieve job information');
    if (!JOB_ID.test(req.params.id)) throw new V1Error(400, { description: 'Failed to retrieve job information', error: "'jobid' has invalid char" });
    return taskCreated(tasks.create(v1User(req).name, 'compute', system.name));
  });

  app.delete<{ Params: { id: string } }>('/jobs/:id', async (req) => {
    const id = req.params.id;
    if (!JOB_ID.test(id)) throw new V1Error(400, { description: 'Failed to delete job', error: "'jobid' has invalid char" });
    return start(req, 'Failed to delete job', async (user, system) => {
      try {
        await system.scheduler.cancel(user, id);
      } catch (e) {
        if ((e instanceof SchedulerError && e.status === 403) || /permission denied/i.test(schedulerText(e))) throw new Error('User does not have permission to cancel job');
        throw new Error(schedulerText(e));
      }
      return '';
    });
  });

  app.get('/acct', async (req) => {
    const q = Fields.query(req, 'Failed to retrieve account information');
    const ids = jobIds(q, 'jobs');
    // A time that fails validation is silently dropped, as on the real server.
    // Upstream 1.16.6 takes only YYYY-MM-DD: a time of day makes it drop the value ("wrongly encoded").
    const time = (name: string): number | undefined => {
      const raw = q.raw(name);
      return upstream(req) && raw !== undefined && raw.includes('T') ? undefined : parseSacctTime(raw);
    };
    const startTime = time('starttime');
    const endTime = time('endtime');
    return start(req, 'Failed to retrieve account information', async (user, system) => {
      const all = await system.scheduler.accounting(user, { jobIds: ids, startTime, endTime });
      const list = ids ? all : withAccountingLag(all, settings.accountingLagSeconds);
      const page = paginate(list, q);
      // Q7: no job at all is `{}`, not `[]`.
      if (page.length === 0) return {};
      // Upstream: slurmdbd has not recorded the job's name yet, `sacct --jobs=N` says `allocation`.
      // (slurmdbd's lag: 3-4 s, whatever the time-window setting says.)
      const lagging = upstream(req) && ids ? new Set(all.filter((j) => !withAccountingLag([j], settings.accountingLagSeconds || 4).length).map((j) => j.jobId)) : undefined;
      return page.map((j) => ({ ...acctJob(j), ...(lagging?.has(j.jobId) ? { name: 'allocation' } : {}) }));
    });
  });

  const nodes = (req: FastifyRequest, names: string[] | undefined) => start(req, 'Failed to retrieve nodes information', async (user, system) => {
    const all = await system.scheduler.nodes(user);
    const wanted = names ? all.filter((n) => names.includes(n.name)) : all;
    if (names && wanted.length === 0) throw new Error(`Node ${names.join(',')} not found`);
    return wanted.map(nodeShape);
  });
  app.get('/nodes', async (req) => nodes(req, q2list(Fields.query(req, 'Failed to retrieve nodes information'), 'nodes')));
  app.get<{ Params: { name: string } }>('/nodes/:name', async (req) => {
    if (hasInvalidChar(req.params.name)) throw new V1Error(400, { description: 'Failed to retrieve nodes information', error: "'nodeName' has invalid char" });
    return nodes(req, [req.params.name]);
  });

  app.get('/partitions', async (req) => {
    const names = q2list(Fields.query(req, 'Failed to retrieve partitions information'), 'partitions');
    return start(req, 'Failed to retrieve partitions information', async (user, system) => {
      const all = await system.scheduler.partitions(user);
      return (names ? all.filter((p) => names.includes(p.name)) : all).map(partitionShape);
    });
  });

  app.get('/reservations', async (req) => {
    const names = q2list(Fields.query(req, 'Failed to retrieve reservations information'), 'reservations');
    return start(req, 'Failed to retrieve reservations information', async (user, system) => {
      const all = await system.scheduler.reservations(user);
      return (names ? all.filter((r) => names.includes(r.name)) : all).map(reservationShape);
    });
  });
}

/** A sanitised comma list from the query, or undefined when absent. */
function q2list(q: Fields, name: string): string[] | undefined {
  const v = q.optional(name);
  return v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean);
}
