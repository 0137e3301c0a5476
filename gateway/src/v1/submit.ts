/**
 * Job submission shared by compute `jobs/upload` / `jobs/path` and the storage `xfer-internal` jobs:
 * the script lands in `<base fs>/<user>/firecrest/<task id>/`, written by the user's own process,
 * is submitted as the user, and the task's success `data` is the JobSubmit object (§2.7.4).
 */
import { posix } from 'node:path';
import { SchedulerError, type JobSpec } from '../scheduler/types';
import type { UnixUser } from '../users';
import type { GatewaySettings, SystemRuntime } from '../v2/context';
import { runV1 } from './remote';
import { atomicWriteArgv } from '../fs/atomic-write';

/** `COMPUTE_BASE_FS/<user>/firecrest/<task id>` (the home when the base file system holds homes). */
export function taskDir(system: SystemRuntime, user: UnixUser, taskId: string): string {
  const fs = system.fileSystems.find((f) => f.defaultWorkDir) ?? system.fileSystems[0];
  const base = fs ? posix.join(fs.path, user.name) : user.home;
  const root = fs && posix.normalize(user.home) === base ? user.home : base;
  return posix.join(root, 'firecrest', taskId);
}

/** Writes `content` to `dir/name` as the user; the error text is the task's `data` on failure. */
export async function writeScript(user: UnixUser, dir: string, name: string, content: Buffer, settings: GatewaySettings): Promise<string> {
  const path = posix.join(dir, name);
  try {
    await runV1(user, ['mkdir', '-p', '--', dir], 'upload', settings);
    await runV1(user, atomicWriteArgv(path, content.length), 'upload', settings, { stdin: content });
  } catch {
    throw new Error('Failed to upload file');
  }
  return path;
}

/** Submits and describes the job the way the real compute worker reports it. */
export async function submitJob(user: UnixUser, system: SystemRuntime, spec: JobSpec, jobFile: string): Promise<Record<string, unknown>> {
  let jobId: string;
  try {
    jobId = await system.scheduler.submit(user, spec);
  } catch (e) {
    throw new Error(e instanceof SchedulerError ? (e.stderr || e.message) : e instanceof Error ? e.message : String(e));
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const record = await system.scheduler.get(user, jobId).catch(() => undefined);
    if (record) {
      return {
        result: 'Job submitted',
        jobid: jobId,
        job_file: jobFile,
        job_file_out: record.standardOutput ?? 'stdout-file-not-found',
        job_file_err: record.standardError ?? record.standardOutput ?? 'stderr-file-not-found',
        job_data_out: '',
        job_data_err: '',
        job_info_extra: 'Job info returned successfully',
      };
    }
  }
  return { result: 'Job submitted', jobid: jobId, job_file_out: 'Not available', job_file_err: 'Not available', job_info_extra: `Job ${jobId} not found` };
}

/** `env` form field: a JSON object of strings (undefined when absent); throws SyntaxError when invalid. */
export function parseEnv(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  const v: unknown = JSON.parse(raw);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SyntaxError('env must be a JSON object');
  const env: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) env[k] = typeof val === 'string' ? val : JSON.stringify(val);
  return env;
}
