/**
 * What `sbatch` decides at submission time, for the built-in scheduler: the script text, the job's
 * name, partition, account, time limit, working directory, dependency, reservation and output
 * paths. Explicit JobSpec fields win over `#SBATCH` lines (as sbatch's command line wins over the
 * script), except `--chdir` in the script, which refines the spec's working directory. Refusals
 * carry sbatch's own error text.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import { runAs } from '../exec';
import type { UnixUser } from '../users';
import { expandPattern, parseArraySpec, parseDirectives, parseTimeLimit } from './local-directives';
import type { LocalDependency, LocalJob, LocalReservation } from './local-state';
import { SchedulerError, checkJobEnv, type JobSpec } from './types';

export interface SubmitContext {
  partitions: { name: string; isDefault: boolean; maxTimeSeconds: number | null }[];
  reservations: LocalReservation[];
  defaultAccount(user: UnixUser): string;
  /** Whether a job id refers to a known job (dependencies must). */
  knownJob(id: number): boolean;
}

/** An sbatch failure as the v2 server reports it (a SlurmError, answered with 500). */
export function sbatchError(text: string): SchedulerError {
  return new SchedulerError(`Unexpected Slurm command response. exit_status:1 std_err:${text}`, 500, text);
}

const NOT_A_SCRIPT = 'sbatch: error: This does not look like a batch script.  The first\n'
  + 'sbatch: error: line must start with #! followed by the path to an interpreter.\n'
  + 'sbatch: error: For instance: #!/bin/sh';

/** Reads a script file as the user, so permissions apply as they would to sbatch. */
async function readScriptAs(user: UnixUser, path: string): Promise<string> {
  if (!isAbsolute(path)) throw sbatchError(`sbatch: error: Unable to open file ${path}`);
  const res = await runAs(user, ['cat', '--', path], { timeoutSeconds: 10, maxOutputBytes: 4 * 1024 * 1024 });
  if (res.exitCode !== 0 || res.outputExceeded) throw sbatchError(`sbatch: error: Unable to open file ${path}`);
  return res.stdout.toString('utf8');
}

/**
 * sbatch's `--dependency` list: `type:id[:id…]` items joined by `,` (all must hold) or `?` (any),
 * and `singleton`. `aftercorr` (array tasks) counts as `afterok`, `afterburstbuffer` as
 * `afterany`; `after:id+minutes` waits for the start only. Anything else is sbatch's refusal.
 */
function parseDependency(value: string): LocalDependency {
  const invalid = () => sbatchError('sbatch: error: Batch job submission failed: Job dependency problem');
  if (value.includes(',') && value.includes('?')) throw invalid();
  const dep: LocalDependency = { mode: value.includes('?') ? 'any' : 'all', items: [], singleton: false };
  for (const part of value.split(/[,?]/).map((p) => p.trim())) {
    if (part === 'singleton') {
      dep.singleton = true;
      continue;
    }
    const m = /^(after|afterok|afternotok|afterany|aftercorr|afterburstbuffer)((?::\d+(?:\+\d+)?)+)$/.exec(part);
    if (!m) throw invalid();
    const type = m[1] === 'aftercorr' ? 'afterok' : m[1] === 'afterburstbuffer' ? 'afterany' : (m[1] as LocalDependency['items'][number]['type']);
    for (const id of m[2].split(':').filter(Boolean)) dep.items.push({ type, id: Number(id.replace(/\+\d+$/, '')) });
  }
  return dep;
}

export type Submission = Omit<LocalJob, 'id' | 'stdout' | 'stderr' | 'stdin' | 'array'> & {
  script: string;
  /** `--array`: one job per index, at most `limit` running at once. */
  array?: { indexes: number[]; limit: number | null };
  /** Unexpanded (`%j` needs the id, which is only taken once everything else is accepted). */
  patterns: { stdout: string; stderr: string | null; stdin: string };
};

/** Validates a submission and resolves everything except the id-dependent output paths. */
export async function resolveSubmission(user: UnixUser, spec: JobSpec, ctx: SubmitContext, now: number): Promise<Submission> {
  checkJobEnv(spec.env);
  let script: string;
  if (spec.script !== undefined && spec.script !== '') script = spec.script;
  else if (spec.scriptPath) script = await readScriptAs(user, spec.scriptPath);
  else throw sbatchError('sbatch: error: Batch script is empty!');
  if (script.trim() === '') throw sbatchError('sbatch: error: Batch script is empty!');
  if (!script.startsWith('#!')) throw sbatchError(NOT_A_SCRIPT);
  const d = parseDirectives(script);

  const partitionName = spec.partition || d.partition || ctx.partitions.find((p) => p.isDefault)?.name || ctx.partitions[0]?.name;
  const partition = ctx.partitions.find((p) => p.name === partitionName);
  if (!partition) throw sbatchError(`sbatch: error: invalid partition specified: ${partitionName ?? ''}`);

  let timeLimit: number | null;
  if (spec.timeLimitMinutes !== undefined && spec.timeLimitMinutes !== null) timeLimit = Math.round(spec.timeLimitMinutes * 60);
  else if (d.time !== undefined) {
    const parsed = parseTimeLimit(d.time);
    if (parsed === undefined) throw sbatchError('sbatch: error: Invalid --time specification');
    timeLimit = parsed;
  } else timeLimit = partition.maxTimeSeconds;
  if (timeLimit === null) timeLimit = partition.maxTimeSeconds;
  if (timeLimit !== null && (timeLimit <= 0 || (partition.maxTimeSeconds !== null && timeLimit > partition.maxTimeSeconds))) {
    throw sbatchError('sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)');
  }

  // The pretend node has no features, so any constraint is one no node satisfies.
  const constraints = spec.constraints || d.constraint || null;
  if (constraints) throw sbatchError('sbatch: error: Batch job submission failed: Invalid feature specification');

  const account = spec.account || d.account || ctx.defaultAccount(user);
  const submitDir = resolve(user.home, spec.workingDirectory || user.home);
  const workingDirectory = d.chdir ? resolve(submitDir, d.chdir) : submitDir;

  const dependency: LocalDependency | undefined = spec.afterOk ? { mode: 'all', items: [{ type: 'afterok', id: Number(spec.afterOk) }], singleton: false } : d.dependency ? parseDependency(d.dependency) : undefined;
  if (dependency?.items.some(({ id }) => !Number.isSafeInteger(id) || !ctx.knownJob(id))) {
    throw sbatchError('sbatch: error: Batch job submission failed: Job dependency problem');
  }
  const afterOk = dependency?.items.filter((i) => i.type === 'afterok').map((i) => i.id) ?? [];

  let array: Submission['array'];
  if (d.array !== undefined) {
    array = parseArraySpec(d.array);
    if (!array) throw sbatchError('sbatch: error: Invalid job array specification');
  }

  const reservation = spec.reservation || d.reservation || null;
  if (reservation) {
    const r = ctx.reservations.find((x) => x.name === reservation);
    if (!r || r.endTime * 1000 <= now) throw sbatchError('sbatch: error: Batch job submission failed: Requested reservation is invalid');
    const allowed = user.uid === 0 || r.users.includes(user.name) || r.accounts.includes(account);
    if (!allowed) throw sbatchError('sbatch: error: Batch job submission failed: Access denied to requested reservation');
  }

  return {
    script,
    user,
    name: spec.name || d.name || (spec.scriptPath && !spec.script ? basename(spec.scriptPath) : 'sbatch'),
    partition: partition.name,
    account,
    reservation,
    constraints,
    submitDir,
    workingDirectory,
    patterns: {
      stdout: spec.standardOutput || d.output || (array ? 'slurm-%A_%a.out' : 'slurm-%j.out'),
      stderr: spec.standardError || d.error || null,
      stdin: spec.standardInput || d.input || '/dev/null',
    },
    env: { ...spec.env },
    timeLimit,
    afterOk,
    ...(dependency ? { dependency } : {}),
    ...(array ? { array } : {}),
    state: 'PENDING',
    reason: 'None',
    exitCode: null,
    signal: null,
    submitTime: now,
    startTime: null,
    endTime: null,
    killRequestUser: null,
    killRequestUid: null,
    pid: null,
    pidStart: null,
  };
}

/** The absolute stdout/stderr/stdin paths once the job id is known (relative = to the working dir). */
export function expandPaths(sub: Submission, id: number, node: string, array?: { jobId: number; taskId: number }): { stdout: string; stderr: string; stdin: string } {
  const vars = { jobId: String(id), jobName: sub.name, user: sub.user.name, node, ...(array ? { arrayJobId: String(array.jobId), arrayTaskId: String(array.taskId) } : {}) };
  const abs = (p: string): string => resolve(sub.workingDirectory, expandPattern(p, vars));
  const stdout = abs(sub.patterns.stdout);
  return { stdout, stderr: sub.patterns.stderr ? abs(sub.patterns.stderr) : stdout, stdin: abs(sub.patterns.stdin) };
}
