/**
 * Facts the API does not give, for agents: how well finished jobs used what they asked for, where
 * a script would start soonest, and how full the user's storage is.
 */
import { z } from 'zod';
import { jobEfficiency, rightSize, type JobEfficiency } from '../facts/efficiency';
import { duration, table } from './format';
import { jobIdText, sidecarPlace, target, where } from './run';
import type { ToolDefinition } from './types';

const GiB = 2 ** 30;
const percent = (x: number | undefined): string => (x === undefined ? '-' : `${Math.round(x * 100)}%`);
const memory = (b: number | undefined): string => (b === undefined ? '-' : b >= GiB ? `${(b / GiB).toFixed(1)} GiB` : `${Math.round(b / 2 ** 20)} MiB`);

function suggestion(e: JobEfficiency, margin: number): string {
  const next = rightSize(e, margin);
  return [next.mem && `--mem=${next.mem}`, next.time && `--time=${next.time}`].filter(Boolean).join(' ') || '-';
}

const efficiencyInput = z.object({
  ...where,
  jobIds: z.array(jobIdText).min(1).max(50).describe('Finished jobs to report on (at most 50).'),
  margin: z.number().min(0).max(2).default(0.25).describe('Headroom for the suggested request, as a fraction of what was used (default 0.25).'),
});

export const efficiencyTool: ToolDefinition<typeof efficiencyInput> = {
  name: 'firecrest_job_efficiency',
  title: 'Job efficiency',
  description: 'How well finished Slurm jobs used what they asked for: CPU efficiency, memory used against memory requested, time used against the limit, and a right-sized request for the next run (--mem and --time with a margin, never below what was used). One short accounting job (sacct) runs on the cluster for all the jobs asked for.',
  kind: 'read',
  input: efficiencyInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const report = await jobEfficiency(client, system, input.jobIds, { signal: ctx.signal, ...(await sidecarPlace(client, system, ctx.signal)) });
    const missing = input.jobIds.filter((id) => !report.jobs.has(id));
    const unrecorded = report.usageRecorded === false ? `\n${system} does not record what jobs use (${report.gatherType}): CPU and memory use are unknown; times and requests are as recorded.` : '';
    const rows = [...report.jobs.values()].map((e) => [
      e.jobId, e.state, `${percent(e.cpuEfficiency)} of ${e.cpus} CPU(s)`, `${memory(e.maxRssBytes)} of ${memory(e.memoryBytes)} (${percent(e.memoryEfficiency)})`,
      `${duration(e.elapsedSeconds)} of ${duration(e.timeLimitSeconds)}`, e.complete ? suggestion(e, input.margin) : 'record not complete yet: ask again in a minute',
    ]);
    const head = `Efficiency on ${system} (from Slurm's accounting; suggestions add ${Math.round(input.margin * 100)}% to what was used):`;
    const none = missing.length ? `\nNo accounting record for ${missing.join(', ')} (not finished, too old, or unknown).` : '';
    return rows.length ? `${head}\n${table(['job', 'state', 'CPU', 'memory used', 'time used', 'next run'], rows)}${none}${unrecorded}` : `No accounting record on ${system} for ${input.jobIds.join(', ')} (not finished, too old, or unknown).`;
  },
};

const startInput = z.object({
  ...where,
  script: z.string().min(1).max(1_000_000).describe('The batch script (its text, with its #SBATCH lines) to estimate; it is not submitted.'),
  partitions: z.array(z.string().min(1).max(200)).max(32).optional().describe('Partitions to compare (default: every partition that is up).'),
});

export const startEstimateTool: ToolDefinition<typeof startInput> = {
  name: 'firecrest_start_estimate',
  title: 'Where would it start soonest',
  description: "Slurm's own estimate of when a batch script would start in each partition, without submitting it (sbatch --test-only per partition, in one short job on the cluster). Lists partitions soonest first, with the nodes; a partition that would refuse the script says why in sbatch's words.",
  kind: 'read',
  input: startInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const partitions = input.partitions?.length ? input.partitions : (await client.partitions(system, { signal: ctx.signal })).filter((p) => !p.state || /^up$/i.test(p.state)).map((p) => p.name);
    if (!partitions.length) return `${system} lists no partition that takes jobs.`;
    // Loaded on first use (a bundle of its own in the extension).
    const { startEstimates } = await import('../facts/startEstimate.js');
    const { estimates } = await startEstimates(client, system, input.script, partitions, { signal: ctx.signal, ...(await sidecarPlace(client, system, ctx.signal)) });
    const now = Date.now() / 1000;
    const rows = estimates.map((e) => [e.partition, e.startTime === undefined ? 'would not start' : e.startTime <= now + 60 ? 'now' : `${new Date(e.startTime * 1000).toISOString().replace(/\.\d+Z$/, 'Z')} (in ${duration(e.startTime - now)})`, e.nodes ?? '-', e.refused ?? '']);
    return `Expected start on ${system}, soonest first (Slurm's estimate; nothing was submitted):\n${table(['partition', 'expected start', 'nodes', 'refusal'], rows)}`;
  },
};

const storageInput = z.object({ ...where });

const size = (b: number | undefined): string => (b === undefined ? '-' : b >= GiB ? `${(b / GiB).toFixed(1)} GiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);

export const storageTool: ToolDefinition<typeof storageInput> = {
  name: 'firecrest_storage',
  title: 'Storage use and limits',
  description: "The user's use against their limits on each file system of a system (space and files, quota and hard limit, a running grace period), from lfs quota, quota or df, whichever the cluster has (the tool is named; df figures are the whole file system's). One short job on the cluster.",
  kind: 'read',
  input: storageInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const paths = (await client.systems({ signal: ctx.signal })).find((s) => s.name === system)?.fileSystems.map((f) => f.path) ?? [];
    if (!paths.length) return `${system} lists no file systems.`;
    const { storageUsage } = await import('../facts/storage.js');
    const r = await storageUsage(client, system, paths, { signal: ctx.signal, ...(await sidecarPlace(client, system, ctx.signal)) });
    const rows = r.usages.map((u) => [
      u.path, u.tool === 'lfs' ? 'lfs quota' : u.tool, size(u.usedBytes), size(u.softLimitBytes), size(u.hardLimitBytes),
      u.files === undefined ? '-' : String(u.files), u.softLimitFiles === undefined ? '-' : String(u.softLimitFiles), u.grace ?? (u.shared ? 'whole file system' : ''),
    ]);
    const missing = r.missing.length ? `\nNo figures for ${r.missing.map((m) => `${m.path} (${m.why})`).join('; ')}.` : '';
    return `Storage on ${system}:\n${table(['file system', 'from', 'used', 'quota', 'hard limit', 'files', 'file quota', 'note'], rows)}${missing}`;
  },
};
