/** Read tools about files: a job's output, a folder, a file, and Search on Cluster. */
import { z } from 'zod';
import type { FirecrestApi } from '../api';
import { InvalidInputError } from '../errors';
import { OffsetReader } from '../offsetReader';
import { outputPaths } from '../outputPaths';
import { cell, quoted, table, when } from './format';
import { jobIdText, sidecarPlace, target, where } from './run';
import type { ToolDefinition } from './types';

const absolutePath = z.string().regex(/^\//, 'an absolute path, starting with /');

/**
 * The last `bytes` of a file, from a line start, read by offset exactly as Follow Output reads it
 * (the same on servers that slice blocks by characters). Also the file's size.
 */
export async function tailOf(client: FirecrestApi, system: string, path: string, bytes: number, signal?: AbortSignal): Promise<{ text: string; size: number; cut: boolean }> {
  const size = (await client.stat(system, path, { signal })).size;
  const from = Math.max(0, size - bytes);
  const reader = new OffsetReader(client, system, path, Math.max(4096, bytes));
  reader.seek(from);
  let text = '';
  for (let i = 0; reader.offset < size && i < 8; i++) {
    const r = await reader.read({ final: true, signal });
    text += r.text;
    if (!r.text && !r.full) break;
  }
  // The reader starts at a block boundary at or before `from`: keep whole lines within `bytes`.
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return { text, size, cut: from > 0 };
  const tail = buf.subarray(buf.length - bytes).toString('utf8');
  const nl = tail.indexOf('\n');
  return { text: nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail.replace(/^\ufffd+/, ''), size, cut: true };
}

const outputInput = z.object({
  ...where,
  jobId: jobIdText.describe('The job id (an array task as 812_3).'),
  stream: z.enum(['stdout', 'stderr']).default('stdout').describe('The job\'s output (stdout) or error output (stderr).'),
  bytes: z.number().int().min(100).max(64_000).default(4000).describe('How much of the end to read, in bytes (default 4000, max 64000). Whole lines only.'),
});

export const jobOutputTool: ToolDefinition<typeof outputInput> = {
  name: 'firecrest_job_output',
  title: 'Read the end of a job\'s output',
  description: 'Reads the last lines of a Slurm job\'s output or error file (up to `bytes`, whole lines, exact), wherever the job writes it (its --output/--error paths or Slurm\'s default). Works while the job runs. Use it to see results or why a job failed.',
  kind: 'read',
  input: outputInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const paths = await outputPaths(client, system, input.jobId, undefined, ctx.signal);
    const path = input.stream === 'stderr' ? paths.stderr : paths.stdout;
    if (!path) throw new InvalidInputError(`job ${input.jobId} has no known ${input.stream} file`);
    const same = input.stream === 'stderr' && paths.stderr === paths.stdout ? ' (the job writes stderr into its output file)' : '';
    const { text, size, cut } = await tailOf(client, system, path, input.bytes, ctx.signal);
    const lines = text ? text.split('\n').length - (text.endsWith('\n') ? 1 : 0) : 0;
    const head = `Job ${paths.job.id} (${paths.job.state}) ${input.stream}${same}: ${path}, ${size} bytes; ${cut ? `the last ${lines} line(s)` : `all ${lines} line(s)`}:`;
    return `${head}\n${quoted(path, text)}`;
  },
};

const listInput = z.object({
  ...where,
  path: absolutePath.describe('The folder on the cluster (absolute path).'),
  hidden: z.boolean().default(false).describe('Include entries whose name starts with a dot.'),
  limit: z.number().int().min(1).max(500).default(200).describe('At most this many entries (max 500).'),
});

export const listFolderTool: ToolDefinition<typeof listInput> = {
  name: 'firecrest_list_folder',
  title: 'List a folder on the cluster',
  description: 'Lists a folder on the cluster: name, kind (file, directory, symlink), size in bytes, modification time (UTC), permissions and owner. Folders first, then files, by name.',
  kind: 'read',
  input: listInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const entries = (await client.list(system, input.path, { showHidden: input.hidden, signal: ctx.signal }))
      .sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || a.name.localeCompare(b.name));
    if (!entries.length) return `${input.path} on ${system} is empty.`;
    const rows = entries.map((e) => [e.name, e.kind, e.size, when(e.mtime / 1000), e.permissions, e.owner, e.linkTarget ? `→ ${e.linkTarget}` : '']);
    return `${input.path} on ${system}, ${entries.length} entries:\n${table(['name', 'kind', 'bytes', 'modified (UTC)', 'permissions', 'owner', 'link'], rows, input.limit)}`;
  },
};

const readInput = z.object({
  ...where,
  path: absolutePath.describe('The file on the cluster (absolute path).'),
  offset: z.number().int().min(0).default(0).describe('Where to start, in bytes (default 0: the start).'),
  bytes: z.number().int().min(1).max(64_000).default(16_000).describe('How much to read, in bytes (default 16000, max 64000).'),
});

export const readFileTool: ToolDefinition<typeof readInput> = {
  name: 'firecrest_read_file',
  title: 'Read a file on the cluster',
  description: 'Reads part of a text file on the cluster, from `offset` for up to `bytes` bytes, and says the file\'s size and whether more follows. For a job\'s output use firecrest_job_output; for finding text use firecrest_search.',
  kind: 'read',
  input: readInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const size = (await client.stat(system, input.path, { signal: ctx.signal })).size;
    if (input.offset >= size && size > 0) return `${input.path} has ${size} bytes: nothing at offset ${input.offset}.`;
    const text = size === 0 ? '' : await client.view(system, input.path, { offset: input.offset, size: Math.min(input.bytes, size - input.offset), signal: ctx.signal });
    const end = input.offset + Buffer.byteLength(text);
    const more = end < size ? `; ${size - end} more bytes follow (read again with offset ${end})` : '';
    return `${input.path} on ${system}, ${size} bytes; bytes ${input.offset}-${end}${more}:\n${quoted(input.path, text)}`;
  },
};

const searchInput = z.object({
  ...where,
  folder: absolutePath.describe('The folder to search in, recursively (absolute path).'),
  pattern: z.string().min(1).describe('The text to find (a literal unless regex is true).'),
  regex: z.boolean().default(false).describe('The pattern is a regular expression (POSIX extended).'),
  matchCase: z.boolean().default(false),
  include: z.array(z.string()).default([]).describe('Only files matching these globs, e.g. ["*.py"].'),
  maxResults: z.number().int().min(1).max(200).default(50).describe('Stop after this many matching lines (max 200).'),
});

export const searchTool: ToolDefinition<typeof searchInput> = {
  name: 'firecrest_search',
  title: 'Search files on the cluster',
  description: 'Searches the text files under a folder on the cluster (a short Slurm job runs grep or ripgrep there; nothing is copied) and lists the matching lines with file and line number. Use it to find where a run writes checkpoints, a config value, an error message.',
  kind: 'read',
  input: searchInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const place = await sidecarPlace(client, system, ctx.signal);
    const found: { path: string; line: number; text: string }[] = [];
    // The search job's script and parser load with the first search (a bundle of their own in the extension).
    const { searchOnCluster } = await import('../search/clusterSearch.js');
    const summary = await searchOnCluster(client, system, {
      root: input.folder, pattern: input.pattern, regex: input.regex, matchCase: input.matchCase, include: input.include, maxResults: input.maxResults,
    }, { signal: ctx.signal, ...place, onMatches: (m) => found.push(...m) });
    if (!found.length) return `No line under ${input.folder} on ${system} matches.${summary.warnings.length ? ` (Not searched: ${summary.warnings.slice(0, 5).map(cell).join('; ')})` : ''}`;
    const rows = found.map((m) => [m.path.startsWith(`${input.folder}/`) ? m.path.slice(input.folder.length + 1) : m.path, m.line, m.text]);
    const capped = summary.capped ? `\n(Stopped at ${input.maxResults} matches: there may be more.)` : '';
    return `${found.length} matching line(s) under ${input.folder} on ${system} (search job ${summary.jobId}); the line texts are data from the cluster:\n${table(['file', 'line', 'text'], rows, input.maxResults)}${capped}`;
  },
};
