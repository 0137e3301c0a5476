/**
 * bench:agent: what the agent tools cost a model, in tokens (o200k_base, gpt-tokenizer), for typical
 * answers: a 200-job listing, the tail of a 10,000-line output, one job with its script, a
 * 200-entry folder, a day's accounting, the partitions. Each is held to a budget, and compared with
 * the baseline of the same run: the same records as the raw JSON a naive tool would return.
 * Synthetic data from a stand-in client (no network): the figures are the tools' formatting.
 * `npm run bench:agent [-- --json]`.
 */
import { countTokens } from 'gpt-tokenizer';
import type { FirecrestClient } from '../src/core/client';
import type { FileEntry, Job, Partition } from '../src/core/model';
import { runTool, toolNamed, type ToolContext } from '../src/core/tools/index';
import { atMost, emitJson, type Figure } from './report.cjs';

const SYSTEM = 'daint';
const NOW = Math.floor(Date.now() / 1000);
const NAMES = ['train-resnet50', 'preprocess-era5', 'cp2k-md-run', 'lammps-melt', 'postproc-plots', 'gromacs-equil', 'jupyter-session', 'hyperparam-sweep'];
const STATES = ['RUNNING', 'PENDING', 'COMPLETED', 'FAILED', 'CANCELLED by 1001', 'TIMEOUT', 'COMPLETED', 'COMPLETED'];
const CLASSES = { RUNNING: 'running', PENDING: 'pending', COMPLETED: 'completed', FAILED: 'failed', TIMEOUT: 'failed' } as const;

function job(i: number): Job {
  const state = STATES[i % STATES.length];
  const stateClass = CLASSES[state as keyof typeof CLASSES] ?? 'cancelled';
  const final = stateClass !== 'running' && stateClass !== 'pending';
  return {
    id: String(4_812_000 + i), name: `${NAMES[i % NAMES.length]}-${i}`, state, stateClass, isFinal: final,
    reason: stateClass === 'pending' ? (i % 3 ? 'Priority' : 'Resources') : undefined,
    exitCode: final ? (stateClass === 'completed' ? 0 : 1) : undefined,
    submitTime: NOW - i * 400, startTime: stateClass === 'pending' ? undefined : NOW - i * 400 + 60, endTime: final ? NOW - i * 400 + 3660 : undefined,
    elapsedSeconds: stateClass === 'pending' ? 0 : 3600, timeLimitSeconds: 4 * 3600, partition: i % 4 ? 'normal' : 'debug', account: 'g123', user: 'alice',
    nodes: `nid00${(i % 90) + 10}`, nodeCount: 1 + (i % 4), workingDirectory: `/scratch/alice/projects/run-${i}`,
    stdoutPath: `/scratch/alice/projects/run-${i}/slurm-${4_812_000 + i}.out`, stderrPath: `/scratch/alice/projects/run-${i}/slurm-${4_812_000 + i}.out`,
  };
}

const JOBS = Array.from({ length: 200 }, (_, i) => job(i));
const OUTPUT = Array.from({ length: 10_000 }, (_, i) => `[step ${i + 1}] loss=${(2.5 / (1 + i / 500)).toFixed(5)} lr=0.0010 grad_norm=${(1 + (i % 7) / 10).toFixed(2)} throughput=1843.2 img/s\n`).join('');
const SCRIPT = ['#!/bin/bash', '#SBATCH --job-name=train-resnet50', '#SBATCH --nodes=4', '#SBATCH --ntasks-per-node=4', '#SBATCH --gpus-per-node=4', '#SBATCH --time=04:00:00', '#SBATCH --partition=normal', '#SBATCH --account=g123', '', 'module load cray-python pytorch', 'export OMP_NUM_THREADS=8', ...Array.from({ length: 50 }, (_, i) => `srun python train.py --epoch-block ${i} --data /scratch/alice/imagenet --checkpoint-dir /scratch/alice/ckpt`)].join('\n');
const ENTRIES: FileEntry[] = Array.from({ length: 200 }, (_, i) => ({ name: i < 20 ? `run-${i}` : `checkpoint-epoch-${i}.pt`, kind: i < 20 ? 'directory' : 'file', size: i < 20 ? 4096 : 104_857_600 + i, mtime: (NOW - i * 3600) * 1000, permissions: 'rw-r--r--', owner: 'alice', group: 'g123' }));
const PARTITIONS: Partition[] = ['normal', 'debug', 'long', 'large', 'gpu', 'xfer', 'prepost', 'low'].map((name, i) => ({ name, state: 'UP', cpus: 128 * (i + 1) * 10, totalNodes: (i + 1) * 10, isDefault: i === 0, maxTimeSeconds: (i + 1) * 3600 }));

/** A stand-in client with what the measured tools read. */
const client = {
  systems: async () => [{ name: SYSTEM, health: { status: 'ok', services: [] }, fileSystems: [{ path: '/scratch', dataType: 'scratch', defaultWorkDir: true }], maxDirectTransferSize: 5 << 20 }],
  jobs: async () => JOBS,
  job: async (_s: string, id: string) => JOBS.find((j) => j.id === id) ?? JOBS[0],
  jobMetadata: async (_s: string, id: string) => ({ id, script: SCRIPT, stdoutPath: JOBS[0].stdoutPath }),
  stat: async () => ({ mode: 0o100644, ino: 1, dev: 1, nlink: 1, uid: 1001, gid: 1001, size: Buffer.byteLength(OUTPUT), atime: NOW, ctime: NOW, mtime: NOW }),
  view: async (_s: string, _p: string, o: { offset?: number; size?: number } = {}) => Buffer.from(OUTPUT).subarray(o.offset ?? 0, (o.offset ?? 0) + (o.size ?? 1 << 20)).toString('utf8'),
  list: async () => ENTRIES,
  partitions: async () => PARTITIONS,
  accounting: async () => JOBS.filter((j) => j.isFinal),
} as unknown as FirecrestClient;

const ctx: ToolContext = {
  connections: () => [{ name: 'cscs', url: 'https://api.cscs.ch/hpc/firecrest/v2', state: 'connected' }],
  client: async () => client,
  readLocal: () => Promise.reject(new Error('not used')),
  defaultSystem: SYSTEM,
};

interface Case {
  name: string;
  tool: string;
  input: Record<string, unknown>;
  /** The raw JSON a tool without formatting would return for the same question. */
  baseline: () => unknown;
  budget: number;
  /** No target against the baseline (a single record is no smaller formatted than as JSON). */
  noRatio?: boolean;
}

const CASES: Case[] = [
  { name: '200-job listing', tool: 'firecrest_jobs', input: { limit: 200 }, baseline: () => JOBS, budget: 8000 },
  // A naive tool reads the whole output file.
  { name: 'output tail of a 10,000-line run', tool: 'firecrest_job_output', input: { jobId: JOBS[0].id }, baseline: () => ({ content: OUTPUT }), budget: 2000 },
  // One record and its script: the same size as the raw JSON (no ratio target), within its budget.
  { name: 'one job with its script', tool: 'firecrest_job', input: { jobId: JOBS[0].id }, baseline: () => ({ ...JOBS[0], script: SCRIPT }), budget: 3000, noRatio: true },
  { name: '200-entry folder', tool: 'firecrest_list_folder', input: { path: '/scratch/alice' }, baseline: () => ENTRIES, budget: 6000 },
  { name: 'accounting of a day', tool: 'firecrest_accounting', input: {}, baseline: () => JOBS.filter((j) => j.isFinal), budget: 6000 },
  { name: 'partitions with load', tool: 'firecrest_partitions', input: {}, baseline: () => ({ partitions: PARTITIONS, jobs: JOBS }), budget: 800 },
];

void (async () => {
  const rows: string[][] = [];
  const figures: Record<string, Figure> = {};
  for (const c of CASES) {
    const r = await runTool(toolNamed(c.tool)!, c.input, ctx);
    if (r.isError) throw new Error(`${c.tool}: ${r.text}`);
    const tokens = countTokens(r.text);
    const raw = countTokens(JSON.stringify(c.baseline()));
    const ratio = tokens / raw;
    rows.push([c.name, c.tool, String(tokens), String(c.budget), String(raw), ratio.toFixed(2)]);
    figures[`${c.tool} tokens`] = atMost(tokens, c.budget, 'tokens');
    figures[`${c.tool} vs raw JSON`] = c.noRatio ? { value: Number(ratio.toFixed(3)), unit: 'ratio' } : atMost(Number(ratio.toFixed(3)), 0.6, 'ratio');
  }
  const head = ['answer', 'tool', 'tokens', 'budget', 'raw JSON tokens (baseline)', 'ratio'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(width[i])).join('  '));
  emitJson('agent', figures);
})();
