/**
 * Why a pending job of the built-in scheduler cannot start yet, in Slurm's reason words. Free CPUs
 * are the caller's business (`Resources`/`Priority`); this covers dependencies and reservations.
 */
import { isFinal, reservationActive } from './local-records';
import type { LocalJob, LocalReservation } from './local-state';

/** `DependencyNeverSatisfied` means the job can never run; null means it may start now. */
export function waitReason(job: LocalJob, jobs: ReadonlyMap<number, LocalJob>, reservations: LocalReservation[], nowSec: number): string | null {
  for (const depId of job.afterOk) {
    const dep = jobs.get(depId);
    if (!dep || (isFinal(dep) && dep.state !== 'COMPLETED')) return 'DependencyNeverSatisfied';
    if (dep.state !== 'COMPLETED') return 'Dependency';
  }
  if (job.reservation) {
    const own = reservations.find((r) => r.name === job.reservation);
    if (!own) return 'ReservationDeleted';
    if (nowSec < own.startTime) return 'Reservation';
  }
  // Reservations cover the whole (single) node: while one is active, only its own jobs run.
  const blocking = reservations.find((r) => r.name !== job.reservation && reservationActive(r, nowSec));
  if (blocking) return blocking.flags.includes('MAINT') ? 'ReqNodeNotAvail, Reserved for maintenance' : 'Reservation';
  return null;
}
