/**
 * CSV export of accounting rows (RFC 4180: quotes doubled, fields with separators, quotes or line
 * breaks quoted, CRLF between records). Times as ISO 8601 UTC so spreadsheets parse them.
 */
import type { AccountingRow } from '../protocol';

const COLUMNS: [string, (r: AccountingRow) => string | number | undefined][] = [
  ['JobID', (r) => r.id],
  ['JobName', (r) => r.name],
  ['State', (r) => r.state],
  ['Partition', (r) => r.partition],
  ['Account', (r) => r.account],
  ['User', (r) => r.user],
  ['NNodes', (r) => r.nodes],
  ['Submit', (r) => iso(r.submit)],
  ['Start', (r) => iso(r.start)],
  ['End', (r) => iso(r.end)],
  ['ElapsedSeconds', (r) => r.elapsed],
  ['ExitCode', (r) => r.exitCode],
  ['CPUEfficiency', (r) => share(r.cpuEfficiency)],
  ['MemoryEfficiency', (r) => share(r.memoryEfficiency)],
  ['TimeUsed', (r) => share(r.timeUsed)],
];

/** A fraction as a number with 3 decimals (0.125), for spreadsheets. */
function share(v: number | undefined): string | undefined {
  return v === undefined ? undefined : v.toFixed(3);
}

function iso(epochSeconds: number | undefined): string | undefined {
  return epochSeconds === undefined ? undefined : new Date(epochSeconds * 1000).toISOString();
}

export function csvField(v: string | number | undefined): string {
  if (v === undefined) return '';
  const s = String(v);
  // A leading = + - @ makes spreadsheets evaluate the cell; a leading apostrophe keeps it text.
  const safe = /^[=+\-@]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The rows as CSV; a column no row fills (Submit on API v2, which has no submit time) is left out. */
export function toCsv(rows: AccountingRow[]): string {
  const columns = COLUMNS.filter(([h, get]) => ['JobID', 'JobName', 'State'].includes(h) || rows.some((r) => get(r) !== undefined));
  const lines = [columns.map(([h]) => h).join(',')];
  for (const r of rows) lines.push(columns.map(([, get]) => csvField(get(r))).join(','));
  return lines.join('\r\n') + '\r\n';
}
