/**
 * Times for a test's reservation. Runs side by side share one Slurm with one node, where two
 * reservations that overlap in time refuse each other ("Requested nodes are busy"): a fixed offset
 * from now made two runs at the same minute pick the same hours (CI70).
 */
import { randomInt } from 'node:crypto';

const HOUR = 3_600_000;
const SLOTS = 60 * 8;

/**
 * Epoch ms of a start: a whole hour in a random 3-hour slot, 5 to 65 days ahead. Five days ahead
 * stays clear of `maint` (three days ahead, four hours long), and a slot leaves room to extend the
 * reservation by two hours.
 */
export function reservationSlot(): number {
  const first = Math.ceil(Date.now() / HOUR) * HOUR + 5 * 24 * HOUR;
  return first + randomInt(SLOTS) * 3 * HOUR;
}

/** Local `YYYY-MM-DDTHH:MM:SS` of epoch ms `ms`, as the v1 reservations service takes times. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
