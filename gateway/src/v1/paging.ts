/** Query helpers of the compute listings: `pageSize`/`pageNumber` (0-based) and sacct time forms. */
import type { Fields } from './context';

/**
 * A page of `list`. When either parameter is given the other defaults (25 / 0); a page past the end
 * fails the task (Q8: even an empty result with pageNumber ≥ 1).
 */
export function paginate<T>(list: T[], q: Fields): T[] {
  const sizeRaw = q.raw('pageSize');
  const numberRaw = q.raw('pageNumber');
  if (sizeRaw === undefined && numberRaw === undefined) return list;
  const size = Number(sizeRaw ?? 25);
  const page = Number(numberRaw ?? 0);
  if (!Number.isInteger(size) || size <= 0 || !Number.isInteger(page) || page < 0) return list;
  const total = Math.max(1, Math.ceil(list.length / size));
  if (page >= total) throw new Error(`pageNumber (${page}) is greater than total pages (${total})`);
  return list.slice(page * size, (page + 1) * size);
}

const n = (s: string | undefined, dflt: number): number => (s === undefined || s === '' ? dflt : Number(s));
const year = (yy: string | undefined, now: Date): number => (yy === undefined || yy === '' ? now.getFullYear() : 2000 + Number(yy));

/**
 * sacct's time forms (`HH:MM[:SS]`, `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`, `MM/DD[/YY]-HH:MM[:SS]`,
 * `YYYY-MM-DD[THH:MM[:SS]]`) as epoch seconds in local time; undefined when absent or invalid.
 */
export function parseSacctTime(value: string | undefined, now = new Date()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let d: Date | undefined;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(v))) {
    d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), n(m[4], 0), n(m[5], 0), n(m[6], 0));
  } else if ((m = /^(\d\d):(\d\d)(?::(\d\d))?$/.exec(v))) {
    d = new Date(now.getFullYear(), now.getMonth(), now.getDate(), Number(m[1]), Number(m[2]), n(m[3], 0));
  } else if ((m = /^(\d\d)(\d\d)(\d\d)?$/.exec(v))) {
    d = new Date(year(m[3], now), Number(m[1]) - 1, Number(m[2]));
  } else if ((m = /^(\d\d)([/.])(\d\d)(?:\2(\d\d))?(?:-(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(v))) {
    if (m[2] === '.' && m[5] !== undefined) return undefined;
    d = new Date(year(m[4], now), Number(m[1]) - 1, Number(m[3]), n(m[5], 0), n(m[6], 0), n(m[7], 0));
  }
  if (!d || Number.isNaN(d.getTime())) return undefined;
  return Math.floor(d.getTime() / 1000);
}
