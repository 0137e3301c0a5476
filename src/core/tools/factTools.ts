/** Facts the API does not give, for agents: how well finished jobs used what they asked for. */
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
