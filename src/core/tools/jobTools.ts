/** Read tools about jobs: the user's jobs, one job's facts and script, waiting for a job, accounting. */
import { sleep } from '../http/sleep';
import { z } from 'zod';
import type { Job } from '../model';
import { explainPendingReason } from '../pendingReasons';
import { duration, quoted, table, when } from './format';
import { jobIdText, target, where } from './run';
import type { ToolDefinition } from './types';

/** The longest script a job tool quotes (lines). */
const MAX_SCRIPT_LINES = 200;

const STATES = ['active', 'running', 'pending', 'finished', 'failed', 'all'] as const;

function matchesState(j: Job, state: (typeof STATES)[number]): boolean {
  switch (state) {
    case 'active': return !j.isFinal;
    case 'running': return j.stateClass === 'running';
    case 'pending': return j.stateClass === 'pending';
    case 'finished': return j.isFinal;
    case 'failed': return j.stateClass === 'failed' || j.stateClass === 'cancelled';
    default: return true;
  }
}

/** Why a pending job waits, in words (Slurm's reason when it is not one we know), and when Slurm expects it to start. */
export function waitReason(j: Job): string {
  if (j.stateClass !== 'pending') return '';
  const why = !j.reason || j.reason === 'None' ? '' : (explainPendingReason(j.reason)?.why ?? j.reason);
  const start = j.expectedStartTime ? `expected to start ${when(j.expectedStartTime)} UTC` : 'no start estimate yet';
  return why ? `${why} (${start})` : start;
}

/** Newest first by id: `812` and array tasks `812_3` (by the array's id, then the task's index). */
export function newerId(a: string, b: string): number {
  const key = (id: string): [number, number] => {
    const m = /^(\d+)(?:_(\d+))?/.exec(id);
    return m ? [Number(m[1]), m[2] === undefined ? -1 : Number(m[2])] : [0, 0];
  };
  const [ka, kb] = [key(a), key(b)];
  return kb[0] - ka[0] || kb[1] - ka[1];
}

function timeCell(j: Job): string {
  const used = duration(j.elapsedSeconds);
  return j.timeLimitSeconds ? `${used} / ${duration(j.timeLimitSeconds)}` : used;
}

const jobsInput = z.object({
  ...where,
  state: z.enum(STATES).default('all').describe('Which jobs: active (running or pending), running, pending, finished, failed (failed, cancelled, timed out), or all.'),
  name: z.string().optional().describe('Only jobs whose name contains this text.'),
  sinceHours: z.number().positive().max(24 * 31).optional().describe('Only jobs submitted in the last this many hours.'),
  allUsers: z.boolean().default(false).describe('Jobs of all users (default: only the user\'s own).'),
  limit: z.number().int().min(1).max(200).default(50).describe('At most this many jobs, newest first (max 200).'),
});

export const jobsTool: ToolDefinition<typeof jobsInput> = {
  name: 'firecrest_jobs',
  title: 'List jobs',
  description: 'Lists the user\'s Slurm jobs on a cluster (queued, running and recently finished), newest first, with state, why a pending job waits (in words), partition, time used / limit, submit time and exit code. Filter by state, name or age. Use firecrest_job for one job\'s details and script.',
  kind: 'read',
  input: jobsInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const since = input.sinceHours === undefined ? undefined : Date.now() / 1000 - input.sinceHours * 3600;
    const jobs = (await client.jobs(system, { allUsers: input.allUsers, signal: ctx.signal }))
      .filter((j) => matchesState(j, input.state) && (!input.name || j.name.includes(input.name)) && (since === undefined || (j.submitTime ?? 0) >= since))
      .sort((a, b) => (b.submitTime ?? 0) - (a.submitTime ?? 0) || newerId(a.id, b.id));
    if (!jobs.length) return `No ${input.state === 'all' ? '' : `${input.state} `}jobs on ${system} match.`;
    const rows = jobs.slice(0, input.limit).map((j) => [j.id, j.name, j.state, waitReason(j), j.partition, timeCell(j), when(j.submitTime), j.exitCode, ...(input.allUsers ? [j.user] : [])]);
    const head = ['job', 'name', 'state', 'waits because', 'partition', 'time used / limit', 'submitted (UTC)', 'exit', ...(input.allUsers ? ['user'] : [])];
    const more = jobs.length > input.limit ? `\n(${jobs.length - input.limit} older jobs not shown: raise limit or narrow the query)` : '';
    return `${jobs.length} job(s) on ${system}:\n${table(head, rows, input.limit)}${more}`;
  },
};

const jobInput = z.object({ ...where, jobId: jobIdText.describe('The job id (an array task as 812_3).') });

export const jobTool: ToolDefinition<typeof jobInput> = {
  name: 'firecrest_job',
  title: 'Show one job',
  description: 'Shows one Slurm job: state and exit code, why it waits (in words, with what the user can do), partition, account, nodes, times, working directory, output and error paths, and its batch script as submitted. Use it to explain why a job failed or still waits.',
  kind: 'read',
  input: jobInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const j = await client.job(system, input.jobId, { signal: ctx.signal });
    const why = j.stateClass === 'pending' && j.reason ? explainPendingReason(j.reason) : undefined;
    const facts: [string, unknown][] = [
      ['state', j.state], ['exit code', j.exitCode], ['signal', j.signal], ['waits because', why ? why.why : waitReason(j)], ['expected to start (UTC)', j.stateClass === 'pending' ? (j.expectedStartTime ? when(j.expectedStartTime) : 'no estimate yet') : undefined], ['what to do', why?.advice],
      ['name', j.name], ['user', j.user], ['account', j.account], ['partition', j.partition], ['nodes', j.nodes], ['node count', j.nodeCount],
      ['submitted (UTC)', when(j.submitTime)], ['started (UTC)', when(j.startTime)], ['ended (UTC)', when(j.endTime)], ['time used / limit', timeCell(j)],
      ['working directory', j.workingDirectory], ['stdout', j.stdoutPath], ['stderr', j.stderrPath],
    ];
    const lines = [`Job ${j.id} on ${system}:`, ...facts.filter(([, v]) => v !== undefined && v !== '' && v !== '-').map(([k, v]) => `- ${k}: ${String(v).replace(/\s+/g, ' ')}`)];
    const meta = await client.jobMetadata(system, j.ownId ?? input.jobId, { signal: ctx.signal }).catch(() => undefined);
    if (meta?.script) {
      const all = meta.script.split('\n');
      const cut = all.length > MAX_SCRIPT_LINES ? `\n(script cut: ${all.length - MAX_SCRIPT_LINES} more lines)` : '';
      lines.push('', 'Batch script:', quoted(`script of job ${j.id}`, all.slice(0, MAX_SCRIPT_LINES).join('\n')) + cut);
    } else {
      lines.push('', 'The scheduler did not keep the batch script.');
    }
    return lines.join('\n');
  },
};

const waitInput = z.object({ ...jobInput.shape, timeoutSeconds: z.number().int().min(1).max(1800).default(300).describe('How long to wait at most (seconds, max 1800). The job is left alone when the wait ends.') });

export const waitJobTool: ToolDefinition<typeof waitInput> = {
  name: 'firecrest_wait_job',
  title: 'Wait for a job to end',
  description: 'Waits until a Slurm job ends (or the timeout passes) and says how it ended: state, exit code, time used. The job is never cancelled by the wait. Use it after firecrest_submit_job when the user wants the result.',
  kind: 'read',
  input: waitInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const deadline = Date.now() + input.timeoutSeconds * 1000;
    let j = await client.job(system, input.jobId, { signal: ctx.signal });
    for (let wait = 1000; !j.isFinal && Date.now() < deadline; wait = Math.min(wait * 1.5, 10_000)) {
      await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), ctx.signal);
      j = await client.job(system, input.jobId, { signal: ctx.signal });
    }
    if (!j.isFinal) return `Job ${j.id} is still ${j.state} after ${input.timeoutSeconds} s${waitReason(j) ? ` (${waitReason(j)})` : ''}; it goes on. Wait again, or look later.`;
    return `Job ${j.id} ended: ${j.state}${j.exitCode !== undefined ? `, exit code ${j.exitCode}` : ''}, time used ${duration(j.elapsedSeconds)}.`;
  },
};

const accountingInput = z.object({
  ...where,
  sinceHours: z.number().positive().max(24 * 366).default(24).describe('Jobs that ran in the last this many hours (default 24).'),
  state: z.enum(STATES).default('all').describe('Which jobs (see firecrest_jobs).'),
  limit: z.number().int().min(1).max(200).default(100).describe('At most this many jobs, newest first (max 200).'),
});

export const accountingTool: ToolDefinition<typeof accountingInput> = {
  name: 'firecrest_accounting',
  title: 'Job accounting',
  description: 'The accounting records (sacct) of the user\'s jobs over a time window: state, exit code, time used, nodes, partition, and a total of the node hours used. API v2 keeps about 7 days. Use it for "what ran this week" or "how much did I use".',
  kind: 'read',
  input: accountingInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const now = Math.floor(Date.now() / 1000);
    const jobs = (await client.accounting(system, { startTime: now - Math.round(input.sinceHours * 3600), endTime: now, signal: ctx.signal }))
      .filter((j) => matchesState(j, input.state))
      .sort((a, b) => (b.startTime ?? b.submitTime ?? 0) - (a.startTime ?? a.submitTime ?? 0));
    if (!jobs.length) return `No jobs on ${system} in the last ${input.sinceHours} hours.`;
    const nodeHours = jobs.reduce((sum, j) => sum + ((j.elapsedSeconds ?? 0) * (j.nodeCount ?? 1)) / 3600, 0);
    const rows = jobs.slice(0, input.limit).map((j) => [j.id, j.name, j.state, j.exitCode, j.partition, j.nodeCount, duration(j.elapsedSeconds), when(j.startTime)]);
    return `${jobs.length} job(s) on ${system} in the last ${input.sinceHours} h, ${nodeHours.toFixed(2)} node-hours in all:\n${table(['job', 'name', 'state', 'exit', 'partition', 'nodes', 'elapsed', 'started (UTC)'], rows, input.limit)}`;
  },
};
