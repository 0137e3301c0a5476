/**
 * Numbers behind the summary and the charts, from the rows alone (no DOM, so unit tests can run
 * them in Node): totals by state, node-hours per account and partition, jobs per time bucket.
 */
import type { AccountingRow } from '../../src/webviews/protocol';

export type StateClass = AccountingRow['stateClass'];
export const STATE_ORDER: StateClass[] = ['completed', 'failed', 'cancelled', 'running', 'pending', 'other'];

/** Node-hours of one job: nodes × elapsed (a job that never started used none). */
export function nodeHours(r: AccountingRow): number {
  return ((r.nodes ?? 1) * (r.elapsed ?? 0)) / 3600;
}

export function totalsByState(rows: AccountingRow[]): Map<StateClass, number> {
  const m = new Map<StateClass, number>();
  for (const r of rows) m.set(r.stateClass, (m.get(r.stateClass) ?? 0) + 1);
  return m;
}

/** Node-hours per value of `key` (e.g. account), largest first; jobs without one count as "(none)". */
export function nodeHoursBy(rows: AccountingRow[], key: 'account' | 'partition'): { key: string; hours: number; jobs: number }[] {
  const m = new Map<string, { hours: number; jobs: number }>();
  for (const r of rows) {
    const k = r[key] || '(none)';
    const e = m.get(k) ?? { hours: 0, jobs: 0 };
    e.hours += nodeHours(r);
    e.jobs += 1;
    m.set(k, e);
  }
  return [...m].map(([k, v]) => ({ key: k, ...v })).sort((a, b) => b.hours - a.hours || a.key.localeCompare(b.key));
}

export interface Bucket {
  /** Start of the bucket, epoch seconds (local day or hour). */
  start: number;
  counts: Map<StateClass, number>;
  total: number;
}

/** The time a job is charted at: when it was submitted, else when it started or ended. */
export function jobTime(r: AccountingRow): number | undefined {
  return r.submit ?? r.start ?? r.end;
}

/**
 * Jobs per hour when all fall within two days, per local day otherwise; empty buckets between the
 * first and last are kept so gaps show as gaps. At most `maxBuckets` (older ones are merged away).
 */
/** The fewest slots the time axis shows: half a day of hours, a week of days. */
const MIN_SLOTS = { hour: 12, day: 7 } as const;

/**
 * Jobs per hour (a span of up to two days) or per day, by state, as a time axis: empty slots are
 * kept, and the axis covers at least MIN_SLOTS of its unit up to the newest job, so a handful of
 * jobs within one hour still reads as a point in time, not as a lone undated bar.
 */
export function jobsOverTime(rows: AccountingRow[], maxBuckets = 60): { unit: 'hour' | 'day'; buckets: Bucket[] } {
  const times = rows.map(jobTime).filter((t): t is number => t !== undefined);
  if (!times.length) return { unit: 'day', buckets: [] };
  const min = Math.min(...times);
  const max = Math.max(...times);
  const unit = max - min <= 2 * 86_400 ? 'hour' : 'day';
  const floor = (t: number) => {
    const d = new Date(t * 1000);
    if (unit === 'hour') d.setMinutes(0, 0, 0);
    else d.setHours(0, 0, 0, 0);
    return Math.floor(d.getTime() / 1000);
  };
  const next = (t: number) => {
    const d = new Date(t * 1000);
    if (unit === 'hour') d.setHours(d.getHours() + 1);
    else d.setDate(d.getDate() + 1);
    return Math.floor(d.getTime() / 1000);
  };
  const back = (t: number, n: number) => {
    const d = new Date(t * 1000);
    if (unit === 'hour') d.setHours(d.getHours() - n);
    else d.setDate(d.getDate() - n);
    return Math.floor(d.getTime() / 1000);
  };
  const buckets: Bucket[] = [];
  const index = new Map<number, Bucket>();
  const first = Math.min(floor(min), back(floor(max), MIN_SLOTS[unit] - 1));
  for (let t = first; t <= max; t = next(t)) {
    const b: Bucket = { start: t, counts: new Map(), total: 0 };
    buckets.push(b);
    index.set(t, b);
  }
  for (const r of rows) {
    const t = jobTime(r);
    if (t === undefined) continue;
    const b = index.get(floor(t));
    if (!b) continue;
    b.counts.set(r.stateClass, (b.counts.get(r.stateClass) ?? 0) + 1);
    b.total += 1;
  }
  return { unit, buckets: buckets.slice(-maxBuckets) };
}

/** `1:02:03`, `2-03:04:05` (Slurm's elapsed form). */
export function formatElapsed(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  const s = Math.max(0, Math.round(seconds));
  const days = Math.floor(s / 86_400);
  const hms = [Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return days ? `${days}-${hms}` : hms;
}

export function formatTime(epochSeconds: number | undefined): string {
  if (epochSeconds === undefined) return '';
  const d = new Date(epochSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function formatHours(h: number): string {
  return h >= 100 ? h.toFixed(0) : h >= 1 ? h.toFixed(1) : h.toFixed(3);
}
