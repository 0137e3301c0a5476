/**
 * "Where would it start sooner?": Slurm's own estimate of when a batch script would start in each
 * candidate partition, without submitting it: one side-car job runs `sbatch --test-only
 * --partition=P` for each. sbatch's words are untrusted text: a line that does not read as an
 * estimate is the partition's refusal, kept as words.
 */
import type { FirecrestApi } from '../api';
import { InvalidInputError, UnavailableError } from '../errors';
import { shellQuote } from '../shellQuote';
import { answerSections, sidecarAnswer } from '../sidecar/answer';
import type { SidecarOptions, SidecarStats } from '../sidecar/sidecar';

export interface StartEstimate {
  partition: string;
  /** When Slurm expects the job to start (epoch seconds). */
  startTime?: number;
  /** The nodes it would run on. */
  nodes?: string;
  /** Why the partition would not take it (sbatch's words). */
  refused?: string;
}

export interface StartEstimates {
  estimates: StartEstimate[];
  stats?: SidecarStats;
}

/** Partitions asked about at most in one run. */
export const MAX_ESTIMATE_PARTITIONS = 32;

/** The side-car's body: the script written to a file of its own, then one `sbatch --test-only` per partition. */
export function estimateBody(script: string, partitions: string[]): string[] {
  const body = [
    'command -v sbatch >/dev/null 2>&1 || { echo "sbatch is not available on this cluster" >&2; return 127; }',
    'f=$(mktemp) || return 1',
    `printf '%s' ${shellQuote(Buffer.from(script, 'utf8').toString('base64'))} | base64 -d > "$f" || return 1`,
  ];
  partitions.forEach((p, i) => {
    body.push(`echo "@p ${i}"`, `SLURM_TIME_FORMAT=%s sbatch --test-only --partition=${shellQuote(p)} "$f" 2>&1`, 'echo "@status $?"');
  });
  body.push('rm -f -- "$f"', 'return 0');
  return body;
}

const ESTIMATE = /to start at (\d{9,})(?: using \d+ processors?)?(?: on nodes (\S+))?/;

/** The answer: per partition, sbatch's line with an estimate, else its last words as the refusal. */
export function parseEstimates(text: string, partitions: string[]): StartEstimate[] {
  const parts = answerSections(text, (line) => {
    const head = /^@p (\d+)$/.exec(line);
    return head && Number(head[1]) < partitions.length ? head[1] : head ? null : undefined;
  });
  return partitions.map((partition, i) => {
    const r = parts.get(String(i));
    const lines = r?.lines.map((l) => l.trim()).filter(Boolean) ?? [];
    const found = r?.status === 0 ? lines.map((l) => ESTIMATE.exec(l)).find(Boolean) : undefined;
    if (found) return { partition, startTime: Number(found[1]), ...(found[2] ? { nodes: found[2] } : {}) };
    const words = lines.map((l) => l.replace(/^sbatch: (error: )?/, '')).filter(Boolean).join('; ').slice(0, 300);
    return { partition, refused: words || 'no estimate' };
  });
}

/** Slurm's start estimate of `script` in each of `partitions`, from one side-car job; sorted soonest first, refusals last. */
export async function startEstimates(api: FirecrestApi, system: string, script: string, partitions: string[], o: SidecarOptions): Promise<StartEstimates> {
  const list = [...new Set(partitions)];
  if (!list.length) return { estimates: [] };
  if (list.length > MAX_ESTIMATE_PARTITIONS) throw new InvalidInputError(`at most ${MAX_ESTIMATE_PARTITIONS} partitions at once`);
  const a = await sidecarAnswer(api, system, 'start estimate', 'f7t-estimate', estimateBody(script, list), o);
  if (a.status !== 0) throw new UnavailableError(`start estimates are not available on ${system}: ${a.errors.split('\n')[0] || `status ${a.status}`}`);
  const { text, status: _s, errors: _e, ...stats } = a;
  const estimates = parseEstimates(text, list).sort((x, y) => (x.startTime ?? Infinity) - (y.startTime ?? Infinity));
  return { estimates, stats };
}
