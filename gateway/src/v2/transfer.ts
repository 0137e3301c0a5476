/**
 * v2 filesystem transfer routes (`/filesystem/{system}/transfer/...`): each operation becomes a batch
 * job submitted as the user, answered at once with the `transferJob` the client then polls. The staged
 * S3 upload/download routes are in staged.ts.
 */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import { SchedulerError, type JobSpec } from '../scheduler/types';
import type { UnixUser } from '../users';
import { Inputs } from '../fs/inputs';
import { compressArgv, compressionOf, extractArgv } from '../fs/tar-commands';
import { formatDirectives, transferJobName, transferScript, type TransferKind } from '../fs/transfer-script';
import { ctx, type SubmitTransferJob, type SystemRuntime, type V2Deps } from './context';
import { stagedTransferRoutes } from './staged';
import { atomicCopyArgv } from '../fs/atomic-write';

/** `<default work dir>/<user>`; the home itself when that file system is where homes live. */
function transferWorkDir(system: SystemRuntime, user: UnixUser): string {
  const fs = system.fileSystems.find((f) => f.defaultWorkDir);
  if (!fs) return user.home;
  const dir = posix.join(fs.path, user.name);
  return fs.path === user.home || posix.normalize(user.home) === dir ? user.home : dir;
}

/** Submits a transfer job as the user: `script` gets the system's directives (account filled in). */

const submitJob: SubmitTransferJob = async (req, name, script, account) => {
  const { user, system } = ctx(req);
  const directives = formatDirectives(system.transferDirectives, account);
  const workDir = transferWorkDir(system, user);
  const id = randomUUID();
  const outputLog = `${workDir}/.f7t_file_handling_job_${id}.log`;
  const errorLog = `${workDir}/.f7t_file_handling_job_error_${id}.log`;
  const spec: JobSpec = {
    script: script(directives),
    workingDirectory: workDir,
    name,
    standardInput: '/dev/null',
    standardOutput: outputLog,
    standardError: errorLog,
    env: { PATH: '/bin:/usr/bin/:/usr/local/bin/' },
  };
  let jobId: string;
  try {
    jobId = await system.scheduler.submit(user, spec);
  } catch (e) {
    if (e instanceof SchedulerError) throw new ApiError(e.status, e.message);
    throw e;
  }
  return { transferJob: { jobId, system: system.name, workingDirectory: workDir, logs: { outputLog, errorLog } } };
};

function submitTransfer(req: FastifyRequest, kind: TransferKind, argv: string[], account: string | undefined): Promise<unknown> {
  return submitJob(req, transferJobName(kind), (directives) => transferScript(kind, directives, argv), account);
}

const TARGET = ['targetPath', 'target_path'];

export async function transferRoutes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  app.post('/mv', async (req, reply) => {
    const b = Inputs.body(req);
    const argv = ['mv', '--', b.sourcePath(), b.path(TARGET)];
    return reply.code(201).send(await submitTransfer(req, 'move', argv, b.string(['account'])));
  });

  app.post('/cp', async (req, reply) => {
    const b = Inputs.body(req);
    const deref = b.bool(['dereference']) ? ['--dereference'] : [];
    const argv = atomicCopyArgv(['-R', ...deref], b.sourcePath(), b.path(TARGET));
    return reply.code(201).send(await submitTransfer(req, 'copy', argv, b.string(['account'])));
  });

  app.delete('/rm', async (req, reply) => {
    const q = Inputs.query(req);
    const argv = ['rm', '-r', '--', q.path()];
    return reply.code(200).send(await submitTransfer(req, 'delete', argv, q.string(['account']) || undefined));
  });

  app.post('/compress', async (req, reply) => {
    const b = Inputs.body(req);
    const argv = compressArgv({
      sourcePath: b.sourcePath(),
      targetPath: b.path(TARGET),
      matchPattern: b.string(['matchPattern', 'match_pattern']) || undefined,
      dereference: b.bool(['dereference']),
      compression: compressionOf(b.string(['compression'])),
    });
    return reply.code(201).send(await submitTransfer(req, 'compress', argv, b.string(['account'])));
  });

  app.post('/extract', async (req, reply) => {
    const b = Inputs.body(req);
    const argv = extractArgv(b.sourcePath(), b.path(TARGET), compressionOf(b.string(['compression'])), deps.settings.maxExtractBytes);
    return reply.code(201).send(await submitTransfer(req, 'extract', argv, b.string(['account'])));
  });

  await stagedTransferRoutes(app, deps, submitJob);
}
