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
  return remembered(state).final;
}

/** What a state string says, worked out once per string: a listing repeats a handful of them. */
interface StateFacts {
  final: boolean;
  /** The class, except for PBS's finished `F`, whose class follows the exit code. */
  cls: JobStateClass | 'F';
}

const known = new Map<string, StateFacts>();
/** States are the server's text: the memory holds this many, then starts again. */
const KNOWN_MAX = 256;

function remembered(state: string): StateFacts {
  let f = known.get(state);
  if (!f) {
    const ps = parts(state);
    f = { final: ps.length > 0 && ps.every((p) => p === 'F' || FINAL_MARKERS.some((m) => p.includes(m))), cls: classOf(ps[0] ?? '') };
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(state, f);
  }
  return f;
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
  const cls = remembered(state).cls;
  if (cls === 'F') return exitCode !== undefined && exitCode !== 0 ? 'failed' : 'completed';
  return cls;
}

function classOf(first: string): JobStateClass | 'F' {
  if (first === 'F') return 'F';
  if (Object.hasOwn(PBS_LETTERS, first)) return PBS_LETTERS[first];
  for (const [cls, markers] of CLASSES) if (markers.some((m) => first.includes(m))) return cls;
  return 'other';
}

/**
 * The start time as the APIs report it, set on `job`: for a pending job, Slurm's estimate of when
 * it will start (not a start), as `expectedStartTime`; for any other job, when it started.
 */
export function setStartTime(job: { stateClass: JobStateClass; startTime?: number; expectedStartTime?: number }, reported: number | undefined): void {
  if (reported === undefined) return;
  if (job.stateClass === 'pending') job.expectedStartTime = reported;
  else job.startTime = reported;
}
