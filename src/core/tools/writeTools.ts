/**
 * Write tools: submit a job, cancel one, upload a local file, write a remote file. Each says what
 * it will do before it runs (`confirm`): VS Code shows that to the user, who accepts or refuses;
 * the MCP server runs them only when started with writes allowed. A script is checked as the
 * editor checks it (sbatch's own rules and the cluster's partitions, accounts and reservations)
 * and refused on an error, before anything is sent.
 */
import { z } from 'zod';
import type { FirecrestClient } from '../client';
import { InvalidInputError, NotFoundError } from '../errors';
import { BoundedMap } from '../boundedMap';
import { parseSbatchScript } from '../sbatch/parser';
import { liveChecks } from '../sbatch/liveChecks';
import { md } from './format';
import { homeFolder, jobIdText, target, where } from './run';
import type { ToolContext, ToolDefinition } from './types';

const absolutePath = z.string().regex(/^\//, 'an absolute path, starting with /');
/** The most lines of a file's new text a write confirmation shows (a script to submit is shown whole). */
const SHOWN_LINES = 80;
/** The most a write_file call carries. */
const MAX_WRITE_BYTES = 1024 * 1024;

const submitInput = z.object({
  ...where,
  script: z.string().min(1).optional().describe('The batch script\'s text (#!/bin/bash, #SBATCH lines, commands). Give exactly one of script, localPath, scriptPath.'),
  localPath: z.string().min(1).optional().describe('A batch script in the user\'s workspace (relative path), sent as text.'),
  scriptPath: absolutePath.optional().describe('A batch script already on the cluster (absolute path).'),
  workingDirectory: absolutePath.optional().describe('Where the job runs (default: the folder of scriptPath, else the user\'s home folder).'),
  partition: z.string().min(1).optional().describe('Partition; default: what the script says, else the scheduler\'s default.'),
  account: z.string().min(1).optional().describe('Account to charge; default: what the script says, else the user\'s default.'),
  reservation: z.string().min(1).optional(),
});
type SubmitInput = z.infer<typeof submitInput>;

interface PreparedSubmit {
  client: FirecrestClient;
  system: string;
  text: string;
  source: string;
  workingDirectory: string;
  partition: string;
}

async function scriptText(input: SubmitInput, client: FirecrestClient, system: string, ctx: ToolContext): Promise<{ text: string; source: string }> {
  const given = [input.script, input.localPath, input.scriptPath].filter((x) => x !== undefined).length;
  if (given !== 1) throw new InvalidInputError('give exactly one of script, localPath or scriptPath');
  if (input.script !== undefined) return { text: input.script, source: 'the script given' };
  if (input.localPath !== undefined) {
    const local = await ctx.readLocal(input.localPath);
    return { text: Buffer.from(local.data).toString('utf8'), source: local.shownAs };
  }
  const path = input.scriptPath ?? '';
  return { text: Buffer.from(await client.downloadSmall(system, path, { signal: ctx.signal })).toString('utf8'), source: `${system}:${path}` };
}

/**
 * The script text each submission was confirmed with, by its input: a file read again when the
 * submission runs must still say what the user saw (a job or an editor may have changed it since).
 * Kept for the last few confirmations only; a submission never confirmed here (the MCP server,
 * where the flag stands for consent) has no entry.
 */
const confirmedScripts = new BoundedMap<string>(32);

function remember(input: SubmitInput, text: string): void {
  confirmedScripts.set(JSON.stringify(input), text);
}

function checkUnchanged(input: SubmitInput, text: string, source: string): void {
  const seen = confirmedScripts.get(JSON.stringify(input));
  if (seen !== undefined && seen !== text) throw new InvalidInputError(`${source} changed after it was confirmed: nothing was submitted; ask again to see the script as it is now`);
}

/** The script and where it goes, checked as the editor checks it: an error refuses it here. */
async function prepareSubmit(input: SubmitInput, ctx: ToolContext): Promise<PreparedSubmit> {
  const { client, system } = await target(ctx, input);
  const { text, source } = await scriptText(input, client, system, ctx);
  const script = parseSbatchScript(text);
  const [partitions, reservations, userInfo] = await Promise.all([
    client.partitions(system, { signal: ctx.signal }),
    client.reservations(system, { signal: ctx.signal }).catch(() => []),
    client.userInfo(system, { signal: ctx.signal }).catch(() => undefined),
  ]);
  const problems = [...script.problems, ...liveChecks(script, { partitions, reservations, userInfo, fetchedAt: Date.now() }, system, new Date())].filter((p) => p.severity === 'error');
  if (problems.length) throw new InvalidInputError(`sbatch would refuse ${source}: ${problems.slice(0, 5).map((p) => `line ${p.span.line + 1}: ${p.message}`).join(' ')}`);
  if (input.partition && !partitions.some((p) => p.name === input.partition)) throw new InvalidInputError(`${system} has no partition ${input.partition} (it has ${partitions.map((p) => p.name).join(', ')})`);
  const chosen = input.partition ?? script.last('partition')?.value;
  const fallback = partitions.find((p) => p.isDefault)?.name;
  const workingDirectory = input.workingDirectory ?? (input.scriptPath ? input.scriptPath.replace(/\/[^/]*$/, '') || '/' : await homeFolder(client, system, ctx.signal));
  return { client, system, text, source, workingDirectory, partition: chosen ?? (fallback ? `the scheduler's default (${fallback})` : 'the scheduler\'s default') };
}

/** `text` in a code block no line of it can close; at most `maxLines` of it, the rest counted. */
function fenced(text: string, maxLines = Infinity): string {
  const lines = text.split('\n');
  const shown = lines.slice(0, maxLines).join('\n');
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}bash\n${shown}\n${fence}${lines.length > maxLines ? `\n(${lines.length - maxLines} more lines)` : ''}`;
}

export const submitJobTool: ToolDefinition<typeof submitInput> = {
  name: 'firecrest_submit_job',
  title: 'Submit a batch job',
  description: 'Submits a Slurm batch script to a cluster (text, a workspace file, or a script already on the cluster) and returns the job id. The script is checked first as the editor checks it (options sbatch refuses, partitions, time limits, accounts, reservations); an error refuses it with the reason, nothing sent. The user confirms every submission. Then use firecrest_wait_job and firecrest_job_output.',
  kind: 'write',
  input: submitInput,
  async confirm(input, ctx) {
    const p = await prepareSubmit(input, ctx);
    remember(input, p.text);
    const account = input.account ?? parseSbatchScript(p.text).last('account')?.value ?? 'your default';
    return {
      title: `Submit a job to ${p.system}`,
      // The whole script, whatever its length: what runs is what the user saw.
      message: [`Submit **${md(p.source)}** to **${md(p.system)}**, partition **${md(p.partition)}**, account ${md(account)}, in ${md(p.workingDirectory)}:`, '', fenced(p.text)].join('\n'),
    };
  },
  async run(input, ctx) {
    const p = await prepareSubmit(input, ctx);
    checkUnchanged(input, p.text, p.source);
    const id = await p.client.submitJob(p.system, {
      ...(input.scriptPath ? { scriptPath: input.scriptPath } : { script: p.text }),
      workingDirectory: p.workingDirectory, partition: input.partition, account: input.account, reservation: input.reservation,
    }, { signal: ctx.signal });
    return `Submitted job ${id} on ${p.system} (partition ${p.partition}, in ${p.workingDirectory}). Wait for it with firecrest_wait_job, then read firecrest_job_output.`;
  },
};

const cancelInput = z.object({ ...where, jobId: jobIdText.describe('The job to cancel (an array task as 812_3; the array id cancels every task).') });

export const cancelJobTool: ToolDefinition<typeof cancelInput> = {
  name: 'firecrest_cancel_job',
  title: 'Cancel a job',
  description: 'Cancels a queued or running Slurm job of the user\'s. The user confirms every cancel.',
  kind: 'write',
  input: cancelInput,
  async confirm(input, ctx) {
    const { client, system } = await target(ctx, input);
    const j = await client.job(system, input.jobId, { signal: ctx.signal });
    const every = j.array && j.array.jobId === j.id ? ` It is an array: **every one of its ${j.array.count} tasks** is cancelled.` : '';
    return { title: `Cancel job ${j.id} on ${system}`, message: `Cancel job **${md(j.id)}** (${md(j.name)}), now **${md(j.state)}** on **${md(system)}**${j.partition ? `, partition ${md(j.partition)}` : ''}?${every}` };
  },
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const j = await client.job(system, input.jobId, { signal: ctx.signal });
    if (j.isFinal) return `Job ${j.id} has already ended (${j.state}): nothing to cancel.`;
    await client.cancelJob(system, input.jobId, { signal: ctx.signal });
    return `Cancel requested for job ${j.id} on ${system} (it was ${j.state}).`;
  },
};

async function refuseOverwrite(client: FirecrestClient, system: string, path: string, overwrite: boolean, signal?: AbortSignal): Promise<boolean> {
  const exists = await client.stat(system, path, { signal }).then(() => true, (e: unknown) => { if (e instanceof NotFoundError) return false; throw e; });
  if (exists && !overwrite) throw new InvalidInputError(`${path} exists on ${system}; pass overwrite: true to replace it`);
  return exists;
}

const uploadInput = z.object({
  ...where,
  localPath: z.string().min(1).describe('The file in the user\'s workspace (relative path).'),
  remotePath: absolutePath.describe('Where it goes on the cluster: the file\'s absolute path.'),
  overwrite: z.boolean().default(false).describe('Replace a file that exists there.'),
});

export const uploadFileTool: ToolDefinition<typeof uploadInput> = {
  name: 'firecrest_upload_file',
  title: 'Upload a file to the cluster',
  description: 'Copies a file of the user\'s workspace to the cluster (any size; large files are staged and verified by SHA-256). Refuses to replace an existing file unless overwrite is true. The user confirms every upload.',
  kind: 'write',
  input: uploadInput,
  async confirm(input, ctx) {
    const { client, system } = await target(ctx, input);
    const local = await ctx.readLocal(input.localPath);
    const exists = await refuseOverwrite(client, system, input.remotePath, input.overwrite, ctx.signal);
    return { title: `Upload to ${system}`, message: `Upload **${md(local.shownAs)}** (${local.data.byteLength} bytes) to **${md(`${system}:${input.remotePath}`)}**${exists ? ', replacing the file there' : ''}?` };
  },
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const local = await ctx.readLocal(input.localPath);
    await refuseOverwrite(client, system, input.remotePath, input.overwrite, ctx.signal);
    await client.transfers.uploadBytes(system, local.data, input.remotePath, { signal: ctx.signal });
    return `Uploaded ${local.shownAs} (${local.data.byteLength} bytes) to ${system}:${input.remotePath}.`;
  },
};

const writeInput = z.object({
  ...where,
  path: absolutePath.describe('The file on the cluster (absolute path).'),
  content: z.string().refine((s) => Buffer.byteLength(s) <= MAX_WRITE_BYTES, 'at most 1 MiB').describe('The whole new text of the file (at most 1 MiB).'),
  overwrite: z.boolean().default(false).describe('Replace a file that exists there.'),
});

export const writeFileTool: ToolDefinition<typeof writeInput> = {
  name: 'firecrest_write_file',
  title: 'Write a file on the cluster',
  description: 'Writes a text file on the cluster (its whole content, at most 1 MiB). Refuses to replace an existing file unless overwrite is true. The user confirms every write.',
  kind: 'write',
  input: writeInput,
  async confirm(input, ctx) {
    const { client, system } = await target(ctx, input);
    const exists = await refuseOverwrite(client, system, input.path, input.overwrite, ctx.signal);
    return { title: `Write a file on ${system}`, message: `${exists ? 'Replace' : 'Create'} **${md(`${system}:${input.path}`)}** (${Buffer.byteLength(input.content)} bytes):\n\n${fenced(input.content, SHOWN_LINES)}` };
  },
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    await refuseOverwrite(client, system, input.path, input.overwrite, ctx.signal);
    await client.transfers.uploadBytes(system, Buffer.from(input.content, 'utf8'), input.path, { signal: ctx.signal });
    return `Wrote ${Buffer.byteLength(input.content)} bytes to ${system}:${input.path}.`;
  },
};
