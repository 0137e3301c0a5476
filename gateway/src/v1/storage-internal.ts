/**
 * v1 `xfer-internal` (§2.6.1): mv, cp, rsync, rm, compress, extract as batch jobs on the transfer
 * partition. The task is a compute task whose success data is the JobSubmit object; the answer has
 * no `task_url`. Job output goes to `job-<jobid>.out/.err` in the job's own folder.
 */
import type { FastifyInstance } from 'fastify';
import { posix } from 'node:path';
import { formatDirectives } from '../fs/transfer-script';
import { shellCommand } from '../fs/shell-quote';
import { ApiError } from '../http/errors';
import { Fields, machine, v1User, type V1Deps } from './context';
import { V1Error } from './errors';
import { submitJob, taskDir, writeScript } from './submit';
import { runTask, taskCreated } from './tasks';
import { extractCommand } from './utilities';
import { atomicCopyArgv } from '../fs/atomic-write';

/** Slurm time-limit forms `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S` -> minutes; undefined when invalid. */
export function timeLimitMinutes(value: string): number | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^(\d+)$/.exec(value))) return Number(m[1]);
  if ((m = /^(\d+):(\d+)$/.exec(value))) return Number(m[1]) + Number(m[2]) / 60;
  if ((m = /^(\d+):(\d+):(\d+)$/.exec(value))) return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) / 60;
  if ((m = /^(\d+)-(\d+)(?::(\d+)(?::(\d+))?)?$/.exec(value))) {
    return Number(m[1]) * 1440 + Number(m[2]) * 60 + Number(m[3] ?? 0) + Number(m[4] ?? 0) / 60;
  }
  return undefined;
}

type Op = 'cp' | 'mv' | 'rsync' | 'rm' | 'compress' | 'extract';

/** The transfer command of each operation (§2.6.1 table). */
function commandOf(op: Op, f: Fields, maxExtractBytes: number): string[] {
  const target = f.required('targetPath');
  if (op === 'rm') return ['rm', '-rf', '--', target];
  const source = f.required('sourcePath');
  switch (op) {
    case 'cp': return atomicCopyArgv(['--force', '-dR', '--preserve=all'], source, target);
    case 'mv': return ['mv', '--force', '--', source, target];
    case 'rsync': return ['rsync', '-av', '--', source, target];
    case 'compress': return ['tar', ...(f.bool('dereference') ? ['--dereference'] : []), '-czf', target, '-C', posix.dirname(source), '--', posix.basename(source)];
    case 'extract': {
      const argv = extractCommand(source, target, f.optional('type'), maxExtractBytes);
      if (!argv) throw new V1Error(400, { description: 'Failed to submit extract job', error: 'Unsupported file format' });
      return argv;
    }
  }
}

export async function storageInternalRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  for (const op of ['cp', 'mv', 'rsync', 'rm', 'compress', 'extract'] as const) {
    app.post(`/${op}`, async (req, reply) => {
      const description = `Failed to submit ${op} job`;
      const f = await Fields.form(req, description);
      const system = machine(req, deps, 'compute', description);
      const argv = commandOf(op, f, deps.settings.maxExtractBytes);
      const jobName = f.optional('jobName') ?? `${op}-job`;
      const time = f.optional('time') ?? '02:00:00';
      const minutes = timeLimitMinutes(time);
      if (minutes === undefined) throw new V1Error(400, { error: 'Not supported time format' });
      const afterOk = f.optional('stageOutJobId');
      if (afterOk !== undefined && !/^\d+$/.test(afterOk)) throw f.invalid("'stageOutJobId' has invalid char");
      const account = f.optional('account');
      let directives: string[];
      try {
        directives = formatDirectives(system.transferDirectives, account);
      } catch (e) {
        throw new V1Error(400, { error: e instanceof ApiError ? e.message : String(e) }, { 'X-Sbatch-Error': 'Failed to submit job' });
      }
      const user = v1User(req);
      const task = deps.tasks.create(user.name, 'compute', system.name);
      const script = ['#!/bin/bash -l', ...directives, '', shellCommand(argv), ''].join('\n');
      runTask(deps.tasks, task.task_id, async () => {
        const dir = taskDir(system, user, task.task_id);
        const path = await writeScript(user, dir, 'sbatch-job.sh', Buffer.from(script), deps.settings);
        const result = await submitJob(user, system, {
          scriptPath: path, workingDirectory: dir, name: jobName, account, afterOk, timeLimitMinutes: minutes,
          standardOutput: `${dir}/job-%j.out`, standardError: `${dir}/job-%j.err`, env: {},
        }, path);
        deps.jobFiles.set(String(result.jobid), path);
        return result;
      });
      return reply.code(201).send(taskCreated(task, false));
    });
  }
}
