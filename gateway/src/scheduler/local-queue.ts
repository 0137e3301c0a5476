/**
 * The built-in scheduler's queue policy: which pending jobs start now, which are cancelled, and
 * the Slurm reason every other pending job shows. FIFO by id, one CPU per job.
 */
import { isFinal, reservationActive } from './local-records';
import type { LocalJob, LocalReservation } from './local-state';

/** How long `DependencyNeverSatisfied` shows on a pending job before it is cancelled. */
const NEVER_SATISFIED_GRACE_MS = 1000;

/** Why a job cannot start apart from free CPUs; `DependencyNeverSatisfied` means the job can never run; null means it may start now. */
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

export interface QueuePlan {
  start: LocalJob[];
  /** Jobs whose dependency can never be met (kill_invalid_depend). */
  cancel: LocalJob[];
  /** New reasons for jobs that stay pending (only those that changed). */
  reasons: Map<LocalJob, string>;
}

/**
 * One scheduling pass. `reasonSince` (when each pending job got its current reason) is kept by the
 * caller; a never-satisfiable dependency shows for a while before the job is cancelled.
 */
export function planQueue(
  jobs: ReadonlyMap<number, LocalJob>, reservations: LocalReservation[], freeCpus: number,
  reasonSince: ReadonlyMap<number, number>, now: number,
): QueuePlan {
  const nowSec = Math.floor(now / 1000);
  const plan: QueuePlan = { start: [], cancel: [], reasons: new Map() };
  let free = freeCpus;
  let waitingForCpus = false;
  const pending = [...jobs.values()].filter((j) => j.state === 'PENDING').sort((a, b) => a.id - b.id);
  for (const job of pending) {
    const wait = waitReason(job, jobs, reservations, nowSec);
    const since = reasonSince.get(job.id);
    if (wait === 'DependencyNeverSatisfied' && job.reason === wait && since !== undefined && now - since >= NEVER_SATISFIED_GRACE_MS) {
      plan.cancel.push(job);
    } else if (wait === null && free > 0) {
      plan.start.push(job);
      free--;
    } else {
      const reason = wait ?? (waitingForCpus ? 'Priority' : 'Resources');
      if (wait === null) waitingForCpus = true;
      if (job.reason !== reason || since === undefined) plan.reasons.set(job, reason);
    }
  }
  return plan;
}
