/**
 * What a scheduler state string means: final or not (the official client's test, §4.2/4.3) and a
 * coarse class for icons and filters. Shared by the v1 and v2 adapters.
 */
import type { JobStateClass } from './model';

const FINAL_MARKERS = ['BOOT_FAIL', 'CANCELLED', 'COMPLETED', 'DEADLINE', 'FAILED', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED', 'TIMEOUT'];

function parts(state: string): string[] {
  return state.split(',').map((p) => p.trim().toUpperCase()).filter(Boolean);
}

/**
 * True when every comma-separated part of the state contains a final marker. The official client
 * also treats any part containing the letter `F` as final (PBS "finished"), which misreads
 * `CONFIGURING`; here only a bare `F` counts.
 */
export function isFinalState(state: string): boolean {
  const ps = parts(state);
  return ps.length > 0 && ps.every((p) => p === 'F' || FINAL_MARKERS.some((m) => p.includes(m)));
}

const CLASSES: [JobStateClass, string[]][] = [
  ['cancelled', ['CANCELLED', 'REVOKED']],
  ['failed', ['BOOT_FAIL', 'DEADLINE', 'FAILED', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED', 'TIMEOUT', 'SPECIAL_EXIT']],
  ['completed', ['COMPLETED']],
  ['running', ['RUNNING', 'COMPLETING', 'STAGE_OUT', 'SIGNALING', 'RESIZING', 'STOPPED', 'SUSPENDED']],
  ['pending', ['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_FED', 'REQUEUE_HOLD', 'RESV_DEL_HOLD', 'POWER_UP_NODE']],
];

const PBS_LETTERS: Record<string, JobStateClass> = { Q: 'pending', H: 'pending', W: 'pending', T: 'pending', R: 'running', E: 'running', B: 'running', S: 'running', X: 'completed' };

/** Coarse class of a state; a finished PBS job (`F`) is `completed` or `failed` by its exit code. */
export function classifyState(state: string, exitCode?: number): JobStateClass {
  const first = parts(state)[0] ?? '';
  if (first === 'F') return exitCode !== undefined && exitCode !== 0 ? 'failed' : 'completed';
  if (PBS_LETTERS[first]) return PBS_LETTERS[first];
  for (const [cls, markers] of CLASSES) if (markers.some((m) => first.includes(m))) return cls;
  return 'other';
}

/**
 * The start time as the APIs report it: for a pending job, Slurm's estimate of when it will
 * start (not a start), as `expectedStartTime`; for any other job, when it started.
 */
export function startTimes(stateClass: JobStateClass, reported: number | undefined): { startTime?: number; expectedStartTime?: number } {
  if (reported === undefined) return {};
  return stateClass === 'pending' ? { expectedStartTime: reported } : { startTime: reported };
}
