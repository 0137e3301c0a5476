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
  const dependency = dependencyState(job, jobs);
  if (dependency === 'never') return 'DependencyNeverSatisfied';
  if (dependency === 'wait') return 'Dependency';
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

type DepState = 'ok' | 'wait' | 'never';

/** One item of a dependency, as Slurm judges it. A job the scheduler forgot has ended. */
function itemState(type: 'after' | 'afterok' | 'afternotok' | 'afterany', dep: LocalJob | undefined): DepState {
  if (!dep) return type === 'afterok' ? 'never' : 'ok';
  const final = isFinal(dep);
  switch (type) {
    case 'after':
      return dep.state !== 'PENDING' ? 'ok' : 'wait';
    case 'afterany':
      return final ? 'ok' : 'wait';
    case 'afterok':
      return !final ? 'wait' : dep.state === 'COMPLETED' ? 'ok' : 'never';
    case 'afternotok':
      return !final ? 'wait' : dep.state === 'COMPLETED' ? 'never' : 'ok';
  }
}

/** An item on an array's id holds for every task of it (`afterok:12` waits for all of 12's tasks). */
function arrayItemState(type: 'after' | 'afterok' | 'afternotok' | 'afterany', id: number, jobs: ReadonlyMap<number, LocalJob>): DepState {
  const first = jobs.get(id);
  if (first?.array?.jobId !== id) return itemState(type, first);
  const states = [...jobs.values()].filter((j) => j.array?.jobId === id).map((j) => itemState(type, j));
  if (type === 'afternotok') return states.includes('wait') ? 'wait' : states.includes('ok') ? 'ok' : 'never';
  return states.includes('never') ? 'never' : states.includes('wait') ? 'wait' : 'ok';
}

/** All items (`,`) or any (`?`); `singleton`: no earlier job of the same name and user still to end. */
function dependencyState(job: LocalJob, jobs: ReadonlyMap<number, LocalJob>): DepState {
  const d = job.dependency ?? { mode: 'all' as const, items: job.afterOk.map((id) => ({ type: 'afterok' as const, id })), singleton: false };
  const states = d.items.map((i) => arrayItemState(i.type, i.id, jobs));
  if (d.singleton) {
    const earlier = [...jobs.values()].some((o) => o.id < job.id && o.name === job.name && o.user.uid === job.user.uid && !isFinal(o));
    states.push(earlier ? 'wait' : 'ok');
  }
  if (states.length === 0) return 'ok';
  if (d.mode === 'any') return states.includes('ok') ? 'ok' : states.every((s) => s === 'never') ? 'never' : 'wait';
  return states.includes('never') ? 'never' : states.includes('wait') ? 'wait' : 'ok';
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
  // `--array=…%N`: tasks of each throttled array running now (and started in this pass).
  const runningTasks = new Map<number, number>();
  for (const j of jobs.values()) if (j.array?.limit != null && j.state === 'RUNNING') runningTasks.set(j.array.jobId, (runningTasks.get(j.array.jobId) ?? 0) + 1);
  for (const job of pending) {
    const throttled = job.array?.limit != null && (runningTasks.get(job.array.jobId) ?? 0) >= job.array.limit;
    const wait = waitReason(job, jobs, reservations, nowSec) ?? (throttled ? 'JobArrayTaskLimit' : null);
    const since = reasonSince.get(job.id);
    if (wait === 'DependencyNeverSatisfied' && job.reason === wait && since !== undefined && now - since >= NEVER_SATISFIED_GRACE_MS) {
      plan.cancel.push(job);
    } else if (wait === null && free > 0) {
      plan.start.push(job);
      free--;
      if (job.array?.limit != null) runningTasks.set(job.array.jobId, (runningTasks.get(job.array.jobId) ?? 0) + 1);
    } else {
      const reason = wait ?? (waitingForCpus ? 'Priority' : 'Resources');
      if (wait === null) waitingForCpus = true;
      if (job.reason !== reason || since === undefined) plan.reasons.set(job, reason);
    }
  }
  return plan;
}
