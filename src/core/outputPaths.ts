/**
 * Where a job writes: the record's paths when the API gives them (v1), else the metadata (v2),
 * else Slurm's default (`slurm-%j.out`, `slurm-%A_%a.out` for an array task) in the working
 * directory. Patterns the scheduler left unexpanded are expanded here for the common cases. An
 * array task's metadata is asked for under its own id where the listing gave one (a v2 path takes
 * no `12_3`).
 */
import type { FirecrestApi } from './api';
import type { Job } from './model';

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
      const meta = await client.jobMetadata(system, job.ownId ?? jobId, { signal });
      stdout ??= meta.stdoutPath;
      stderr ??= meta.stderrPath;
    } catch {
      // Metadata is optional (Slurm REST mode answers 501): fall back to the defaults below.
    }
  }
  const wd = job.workingDirectory;
  if (!stdout && wd) stdout = `${wd.replace(/\/+$/, '')}/${job.array?.taskId !== undefined ? 'slurm-%A_%a.out' : `slurm-${job.id}.out`}`;
  // Without --error, Slurm writes stderr into the stdout file.
  stderr ??= stdout;
  const expand = (p?: string) => (p ? absolute(expandPattern(p, job), wd) : undefined);
  return { stdout: expand(stdout), stderr: expand(stderr), job };
}

/** `%j` (a task's own id, when known), `%A` and `%a` (array and index), `%x`, `%u`, `%N` (first node), `%%`. */
export function expandPattern(p: string, job: Job): string {
  const task = job.array?.taskId;
  return p.replace(/%(%|j|x|u|A|a|N)/g, (m, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'j':
        return task === undefined ? job.id : (job.ownId ?? m);
      case 'A':
        return job.array?.jobId ?? job.id;
      case 'a':
        return task === undefined ? '4294967294' : String(task);
      case 'x':
        return job.name;
      case 'u':
        return job.user ?? m;
      default:
        return job.nodes?.split(/[,[]/)[0] || m;
    }
  });
}

function absolute(p: string, wd?: string): string {
  if (p.startsWith('/') || !wd) return p;
  return `${wd.replace(/\/+$/, '')}/${p}`;
}
