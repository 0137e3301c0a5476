/**
 * A start for a test's reservation: a whole hour in a random 3-hour slot, 5 to 65 days ahead.
 * Runs side by side share one Slurm with one node, where two reservations that overlap in time
 * refuse each other ("Requested nodes are busy"): a fixed offset from now made two runs at the
 * same minute pick the same hours (CI70). Five days ahead stays clear of `maint` (three days ahead,
 * four hours long), and a slot leaves room to extend the reservation by two hours.
 */
import { randomInt } from 'node:crypto';

const HOUR = 3_600_000;
const SLOTS = 60 * 8;

/** Epoch ms of the start. */
export function reservationSlot(): number {
  const first = Math.ceil(Date.now() / HOUR) * HOUR + 5 * 24 * HOUR;
  return first + randomInt(SLOTS) * 3 * HOUR;
}
