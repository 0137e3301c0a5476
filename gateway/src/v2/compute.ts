/** v2 compute routes (§3.3): submit, list, get, metadata, cancel, attach. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../http/errors';
import { queryBool, queryString } from '../http/query';
import { SchedulerError, arrayFormId, isFinalState, withAccountingLag, type JobRecord, type JobSpec } from '../scheduler/types';
import { ctx, type V2Deps } from './context';
import { srunWithoutShell, unknownJobCancel, upstream } from '../compat';

const TIME_WINDOWS: Record<string, number> = { '1h': 3600, '8h': 8 * 3600, '24h': 24 * 3600, '3d': 3 * 86400, '7d': 7 * 86400 };
const DEFAULT_ENV = { F7T_version: 'v2.0.0' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body is `{"job": JobDescription}`; pydantic reports problems under the first-level field `job`. */
function jobError(message: string): ApiError {
  return validationError('body', 'job', message);
}

/** An optional string field under any of its accepted spellings; `nullable` = explicit null allowed. */
function str(job: Record<string, unknown>, names: string[], nullable = true): string | undefined {
  for (const n of names) {
    if (!(n in job)) continue;
    const v = job[n];
    if (v === null && nullable) return undefined;
    if (typeof v !== 'string') throw jobError(`${n}: Input should be a valid string`);
    return v;
  }
  return undefined;
}

function parseEnv(job: Record<string, unknown>): Record<string, string> {
  const raw = 'env' in job ? job.env : job.environment;
  if (raw === undefined || raw === null) return { ...DEFAULT_ENV };
  const env: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item !== 'string' || !item.includes('=')) throw jobError('env: Input should be a list of "KEY=VALUE" strings');
      const i = item.indexOf('=');
      env[item.slice(0, i)] = item.slice(i + 1);
    }
    return env;
  }
  if (!isObject(raw)) throw jobError('env: Input should be a valid dictionary or list');
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') throw jobError(`env.${k}: Input should be a valid string`);
    env[k] = v;
  }
  return env;
}

/** Reads a JobDescription with every alias of §3.3. */
export function parseJobDescription(body: unknown): JobSpec {
  if (!isObject(body) || !('job' in body)) throw jobError('Field required');
  const job = body.job;
  if (!isObject(job)) throw jobError('Input should be a valid dictionary or object');
  const workingDirectory = str(job, ['workingDirectory', 'working_directory', 'current_working_directory'], false);
  if (workingDirectory === undefined) throw jobError('workingDirectory: Field required');
  const spec: JobSpec = { workingDirectory, env: parseEnv(job) };
  const fields: [keyof JobSpec, string[], boolean][] = [
    ['script', ['script'], false],
    ['scriptPath', ['scriptPath', 'script_path'], false],
    ['name', ['name'], true],
    ['account', ['account'], true],
    ['partition', ['partition'], true],
    ['reservation', ['reservation'], true],
    ['standardInput', ['standardInput', 'standard_input'], true],
    ['standardOutput', ['standardOutput', 'standard_output'], true],
    ['standardError', ['standardError', 'standard_error'], true],
    ['constraints', ['constraints'], true],
  ];
  for (const [key, names, nullable] of fields) {
    const v = str(job, names, nullable);
    if (v !== undefined) (spec as unknown as Record<string, string>)[key] = v;
  }
  return spec;
}

/** The v2 Job object: the record minus the gateway-internal fields. */
function toWire(j: JobRecord): Record<string, unknown> {
  return {
    jobId: j.jobId,
    name: j.name,
    status: j.status,
    tasks: j.tasks,
    time: j.time,
    account: j.account,
    allocationNodes: j.allocationNodes,
    cluster: j.cluster,
    group: j.group,
    nodes: j.nodes,
    partition: j.partition,
    killRequestUser: j.killRequestUser,
    user: j.user,
    workingDirectory: j.workingDirectory,
    priority: j.priority,
  };
}

/**
 * The rows of one record, as the v2 server's union of sacct and squeue (keyed by their JobID
 * texts) shows them. An array task appears as sacct writes it (`12_3`, and `12_[4-9%2]` for the
 * tasks not started) and, while squeue still shows it, once more under its own numeric id: the
 * only form a v2 path accepts (`^[a-zA-Z0-9]+$`), so the only handle a client has on one task.
 */
function wireRows(j: JobRecord): Record<string, unknown>[] {
  const row = toWire(j);
  if (!j.arrayJobId) return [row];
  const array = { ...row, jobId: arrayFormId(j) };
  return isFinalState(j.status.state) ? [array] : [array, row];
}

function jobId(req: FastifyRequest): string {
  const id = (req.params as { jobId: string }).jobId;
  if (!/^[a-zA-Z0-9]+$/.test(id)) throw validationError('path', 'jobId', "String should match pattern '^[a-zA-Z0-9]+$'");
  return id;
}

export async function computeRoutes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  app.post('', async (req, reply) => {
    const { user, system } = ctx(req);
    const spec = parseJobDescription(req.body);
    const id = await system.scheduler.submit(user, spec);
    if (!id) throw new ApiError(500, 'Unable to submit new job');
    return reply.code(201).send({ jobId: String(id) });
  });

  app.get('', async (req) => {
    const { user, system } = ctx(req);
    const allUsers = queryBool(req, 'allusers', false);
    const account = queryString(req, 'account');
    const name = queryString(req, 'name');
    if (name !== undefined && name.length > 235) throw validationError('query', 'name', 'String should have at most 235 characters');
    const window = queryString(req, 'time_window') ?? '24h';
    const seconds = TIME_WINDOWS[window];
    if (seconds === undefined) throw validationError('query', 'time_window', "Input should be '1h', '8h', '24h', '3d' or '7d'");
    const jobs = await system.scheduler.list(user, {
      allUsers,
      account: account ? account : undefined,
      name: name ? name : undefined,
      finishedWithinSeconds: seconds,
    });
    return { jobs: withAccountingLag(jobs, deps.settings.accountingLagSeconds).flatMap(wireRows) };
  });

  // An array's id finds all its tasks (sacct -j and squeue -j do); a task's own id finds it in both forms.
  app.get('/:jobId', async (req) => {
    const { user, system } = ctx(req);
    const jobs = await system.scheduler.lookup(user, jobId(req));
    if (!jobs.length) throw new ApiError(404, 'Job not found.');
    return { jobs: jobs.flatMap(wireRows) };
  });

  app.get('/:jobId/metadata', async (req) => {
    const { user, system } = ctx(req);
    const meta = await system.scheduler.metadata(user, jobId(req));
    if (!meta) throw new ApiError(404, 'Job not found.');
    return { jobs: [meta] };
  });

  app.delete('/:jobId', async (req, reply) => {
    const { user, system } = ctx(req);
    // Upstream hands the id to scancel as it is, which refuses an array task's own id.
    if (upstream(req) && (await system.scheduler.lookup(user, jobId(req))).some((j) => j.jobId === jobId(req) && j.arrayJobId && j.arrayJobId !== j.jobId)) {
      throw unknownJobCancel(jobId(req));
    }
    try {
      await system.scheduler.cancel(user, jobId(req));
    } catch (e) {
      if (e instanceof SchedulerError && e.status === 404) throw upstream(req) ? unknownJobCancel(jobId(req)) : new ApiError(404, 'Job not found');
      throw e;
    }
    return reply.code(204).send();
  });

  app.put('/:jobId/attach', async (req, reply) => {
    const { user, system } = ctx(req);
    const id = jobId(req);
    const body = req.body;
    if (!isObject(body) || typeof body.command !== 'string') throw validationError('body', 'command', 'Field required');
    const command = upstream(req) ? srunWithoutShell(body.command) : body.command;
    const r = await system.scheduler.attach(user, id, command, deps.settings.commandTimeoutSeconds * 1000);
    if (r.exitCode !== 0) throw new ApiError(500, `Remote process failed with exit status:${r.exitCode} and error message:${r.stderr}`);
    return reply.code(204).send();
  });
}
