/**
 * Readers for the values sbatch checks itself: time limits, memory sizes, array indexes and
 * dependencies. Each returns the typed value or the reason sbatch would reject it, so the editor
 * can say why before the user waits for the error from the cluster.
 */

/** A value read, or the reason it is rejected. */
export type ValueResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): ValueResult<T> => ({ ok: true, value });
const bad = <T>(reason: string): ValueResult<T> => ({ ok: false, reason });

const TIME_FORMATS = 'minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED';

/**
 * Seconds of a Slurm time limit (`Infinity` for UNLIMITED/INFINITE and for 0, which Slurm reads as
 * "no limit"). Slurm counts in minutes: seconds are rounded up to the next minute.
 */
export function parseTime(text: string): ValueResult<number> {
  const s = text.trim();
  if (/^(unlimited|infinite)$/i.test(s)) return ok(Infinity);
  if (s === '') return bad(`empty time; use ${TIME_FORMATS}`);
  let days = 0;
  let rest = s;
  const dash = /^(\d+)-(.*)$/.exec(s);
  if (dash) {
    days = Number(dash[1]);
    rest = dash[2];
  }
  if (!/^\d+(:\d+){0,2}$/.test(rest)) return bad(`'${s}' is not a time; use ${TIME_FORMATS}`);
  const parts = rest.split(':').map(Number);
  let h = 0;
  let m = 0;
  let sec = 0;
  if (dash) {
    [h, m = 0, sec = 0] = parts; // D-HH, D-HH:MM, D-HH:MM:SS
  } else if (parts.length === 1) {
    [m] = parts;
  } else if (parts.length === 2) {
    [m, sec] = parts; // MM:SS (not HH:MM, a classic mistake)
  } else {
    [h, m, sec] = parts;
  }
  const total = days * 86400 + h * 3600 + m * 60 + sec;
  if (total === 0) return ok(Infinity);
  return ok(Math.ceil(total / 60) * 60);
}

/** A time limit as Slurm prints it: `D-HH:MM:SS`, `HH:MM:SS`, or `UNLIMITED`. */
export function formatTime(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'UNLIMITED';
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  const hms = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return d > 0 ? `${d}-${hms}` : hms;
}

const UNIT: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 };

/** MiB of a memory size: an integer with an optional K/M/G/T unit (MiB when none). */
export function parseMemory(text: string): ValueResult<number> {
  const m = /^(\d+)([KMGT])?$/i.exec(text.trim());
  if (!m) {
    if (/^\d+\.\d+/.test(text)) return bad(`'${text}': sbatch takes whole numbers only (use a smaller unit, e.g. 1536M)`);
    return bad(`'${text}' is not a size; use a whole number with K, M, G or T (MiB when no unit)`);
  }
  return ok(Number(m[1]) * UNIT[(m[2] ?? 'M').toUpperCase()]);
}

/** A job array: how many tasks it makes, its largest index and the `%N` throttle. */
export interface ArraySpec {
  count: number;
  maxIndex: number;
  throttle?: number;
}

/** The largest array index any Slurm accepts (MaxArraySize is at most 4,000,001; a site's is often 1,001). */
export const MAX_ARRAY_INDEX = 4_000_000;

/**
 * `0-15`, `1,3,5-7`, `0-15:4`, each optionally followed by `%N`. An index past MAX_ARRAY_INDEX is
 * refused in words before anything is counted; the indexes are counted in a bitmap of at most
 * 4 Mbit, so even the largest legal array costs milliseconds and no stack.
 */
export function parseArray(text: string): ValueResult<ArraySpec> {
  const [spec, throttleText, ...extra] = text.trim().split('%');
  if (extra.length) return bad(`'${text}': only one %N throttle is allowed`);
  let throttle: number | undefined;
  if (throttleText !== undefined) {
    if (!/^\d+$/.test(throttleText)) return bad(`'%${throttleText}' is not a number of tasks`);
    throttle = Number(throttleText);
  }
  if (spec === '') return bad('no array indexes before the %');
  const ranges: [number, number, number][] = [];
  let maxIndex = 0;
  for (const part of spec.split(',')) {
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!m) return bad(`'${part}' is not an index, a range a-b or a stepped range a-b:s`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (b < a) return bad(`'${part}': the range ends before it starts`);
    if (step < 1) return bad(`'${part}': the step must be at least 1`);
    if (b > MAX_ARRAY_INDEX) return bad(`'${part}': array indexes go up to ${MAX_ARRAY_INDEX.toLocaleString('en-US')} at most on any Slurm (the site's MaxArraySize is often far lower)`);
    const last = a + Math.floor((b - a) / step) * step;
    maxIndex = Math.max(maxIndex, last);
    ranges.push([a, b, step]);
  }
  const seen = new Uint8Array(maxIndex + 1);
  let count = 0;
  for (const [a, b, step] of ranges) {
    for (let i = a; i <= b; i += step) {
      if (seen[i]) continue;
      seen[i] = 1;
      count++;
    }
  }
  return ok({ count, maxIndex, throttle });
}

/** Dependency types sbatch accepts with job ids. */
export const DEPENDENCY_TYPES = ['after', 'afterany', 'afterok', 'afternotok', 'aftercorr', 'afterburstbuffer'] as const;

/** One `type:id[:id…]` condition, or `singleton`. */
export interface DependencyCondition {
  type: (typeof DEPENDENCY_TYPES)[number] | 'singleton';
  jobs: { id: string; delayMinutes?: number }[];
}

/** All conditions; `any` when joined by `?` (one suffices), otherwise all must hold. */
export interface DependencySpec {
  conditions: DependencyCondition[];
  any: boolean;
}

/** `afterok:1:2,afterany:3`, `after:5+10`, `singleton`, `afterok:1?afternotok:2`. */
export function parseDependency(text: string): ValueResult<DependencySpec> {
  const s = text.trim();
  if (s === '') return bad('empty dependency');
  if (s.includes(',') && s.includes('?')) return bad(`'${s}': use either ',' (all) or '?' (any), not both`);
  const any = s.includes('?');
  const conditions: DependencyCondition[] = [];
  for (const part of s.split(any ? '?' : ',')) {
    if (part === 'singleton') {
      conditions.push({ type: 'singleton', jobs: [] });
      continue;
    }
    const [type, ...ids] = part.split(':');
    if (!(DEPENDENCY_TYPES as readonly string[]).includes(type)) {
      return bad(`'${type}' is not a dependency type (${DEPENDENCY_TYPES.join(', ')}, singleton)`);
    }
    if (ids.length === 0 || ids.some((x) => x === '')) return bad(`'${part}': give at least one job id after ${type}:`);
    const jobs: DependencyCondition['jobs'] = [];
    for (const idText of ids) {
      const m = /^(\d+(?:_\d+)?)(?:\+(\d+))?$/.exec(idText);
      if (!m) return bad(`'${idText}' is not a job id`);
      if (m[2] !== undefined && type !== 'after') return bad(`'+${m[2]}': a delay in minutes is only allowed with after:`);
      jobs.push({ id: m[1], delayMinutes: m[2] === undefined ? undefined : Number(m[2]) });
    }
    conditions.push({ type: type as DependencyCondition['type'], jobs });
  }
  return ok({ conditions, any });
}

/** Mail types sbatch knows (comma-separated in the value). */
export const MAIL_TYPES = [
  'NONE', 'BEGIN', 'END', 'FAIL', 'REQUEUE', 'ALL', 'INVALID_DEPEND', 'STAGE_OUT',
  'TIME_LIMIT', 'TIME_LIMIT_90', 'TIME_LIMIT_80', 'TIME_LIMIT_50', 'ARRAY_TASKS',
] as const;
