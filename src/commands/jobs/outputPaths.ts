/**
 * Where a job writes: the record's paths when the API gives them (v1), else the metadata (v2),
 * else Slurm's default `slurm-%j.out` in the working directory. Patterns the scheduler left
 * unexpanded are expanded here for the common cases.
 */
import type { FirecrestApi } from '../../core/api';
import type { Job } from '../../core/model';

export interface OutputPaths {
  stdout?: string;
  stderr?: string;
  job: Job;
}

export async function outputPaths(client: FirecrestApi, system: string, jobId: string, known?: Job, signal?: AbortSignal): Promise<OutputPaths> {
  const job = known ?? (await client.job(system, jobId, { signal }));
  let stdout = job.stdoutPath;
  let stderr = job.stderrPath;
  if (!stdout || !stderr) {
    try {
      const meta = await client.jobMetadata(system, jobId, { signal });
      stdout ??= meta.stdoutPath;
      stderr ??= meta.stderrPath;
    } catch {
      // Metadata is optional (Slurm REST mode answers 501): fall back to the defaults below.
    }
  }
  const wd = job.workingDirectory;
  if (!stdout && wd) stdout = `${wd.replace(/\/+$/, '')}/slurm-${job.id}.out`;
  // Without --error, Slurm writes stderr into the stdout file.
  stderr ??= stdout;
  const expand = (p?: string) => (p ? absolute(expandPattern(p, job), wd) : undefined);
  return { stdout: expand(stdout), stderr: expand(stderr), job };
}

function expandPattern(p: string, job: Job): string {
  return p.replace(/%(%|j|x|u|A|a)/g, (_m, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'j':
      case 'A':
        return job.id;
      case 'x':
        return job.name;
      case 'u':
        return job.user ?? '%u';
      default:
        return '%' + c;
    }
  });
}

function absolute(p: string, wd?: string): string {
  if (p.startsWith('/') || !wd) return p;
  return `${wd.replace(/\/+$/, '')}/${p}`;
}
