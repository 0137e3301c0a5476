/**
 * Which rows the table shows and in what order: free-text filter, then a sort on one column.
 * No DOM here, so unit tests run it in Node.
 */
import type { AccountingRow } from '../../src/webviews/protocol';

export interface TableView {
  sort: { column: keyof AccountingRow; descending: boolean };
  filter: string;
  page: number;
}

function compare(a: AccountingRow, b: AccountingRow, key: keyof AccountingRow): number {
  const x = a[key];
  const y = b[key];
  if (x === y) return 0;
  // Missing values sort last whatever the direction, as in sacct's empty fields.
  if (x === undefined || x === '') return 1;
  if (y === undefined || y === '') return -1;
  if (key === 'id') return Number(x) - Number(y) || String(x).localeCompare(String(y));
  return typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
}

/** Rows as the table shows them (filter and sort applied, all pages). */
export function visibleRows(rows: AccountingRow[], view: TableView): AccountingRow[] {
  const needle = view.filter.trim().toLowerCase();
  const hit = (r: AccountingRow) =>
    !needle || [r.id, r.name, r.state, r.partition, r.account, r.user, r.exitCode].some((v) => v !== undefined && String(v).toLowerCase().includes(needle));
  const dir = view.sort.descending ? -1 : 1;
  return rows.filter(hit).sort((a, b) => {
    const c = compare(a, b, view.sort.column);
    // Keep "missing last" in both directions.
    return a[view.sort.column] === undefined || b[view.sort.column] === undefined ? c : c * dir;
  });
}
