/**
 * Slurm's array specs (`0-99:2,150%10`, the indexes of an array's tasks not started): how many
 * indexes one names, whether it names an index, and rows that count a task twice.
 */
import type { Job } from './model';

/** More indexes than any Slurm allows (MaxArraySize is at most 4,000,001): a row claiming more is refused. */
const MAX_INDEXES = 4_000_001;

interface IndexRange { from: number; to: number; step: number }

/** The ranges of a spec (its `%N` throttle left out), or undefined when it is not one. */
function rangesOf(spec: string): IndexRange[] | undefined {
  const ranges: IndexRange[] = [];
  for (const part of spec.replace(/%\d+$/, '').split(',')) {
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!m) return undefined;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (to < from || step < 1) return undefined;
    ranges.push({ from, to, step });
  }
  return ranges;
}

/** How many indexes an array spec names (`0-99:2,150%10` → 51), or undefined when it is not one. */
export function countIndexes(spec: string): number | undefined {
  const ranges = rangesOf(spec);
  if (!ranges) return undefined;
  let total = 0;
  for (const r of ranges) {
    total += Math.floor((r.to - r.from) / r.step) + 1;
    if (total > MAX_INDEXES) return undefined;
  }
  return total;
}

/**
 * The rows with each row of tasks not started (`12_[0-2]`) counting only the indexes no row of
 * their own has: rows read at two moments (v1's queue, then accounting a moment later) may show a
 * task still waiting in one and started in the other. A row left with none is dropped.
 */
export function countEachTaskOnce(rows: Job[]): Job[] {
  const listed = new Map<string, Set<number>>();
  for (const j of rows) {
    const a = j.array;
    if (a?.taskId === undefined) continue;
    let indexes = listed.get(a.jobId);
    if (!indexes) listed.set(a.jobId, (indexes = new Set()));
    indexes.add(a.taskId);
  }
  if (!listed.size) return rows;
  const out: Job[] = [];
  for (const j of rows) {
    const a = j.array;
    const own = a?.pending !== undefined ? listed.get(a.jobId) : undefined;
    if (!a || !own) {
      out.push(j);
      continue;
    }
    const ranges = rangesOf(a.pending!) ?? [];
    let named = 0;
    for (const i of own) if (ranges.some((r) => i >= r.from && i <= r.to && (i - r.from) % r.step === 0)) named++;
    if (named >= a.count) continue;
    out.push(named ? { ...j, array: { ...a, count: a.count - named } } : j);
  }
  return out;
}
