/**
 * Job arrays as the servers list them. Slurm names a task `12_3` and the tasks not started yet
 * `12_[4-99%10]` (sacct, squeue's `%i`, v1). The v2 servers list the union of sacct and squeue by
 * their id texts, so a queued or running task shows twice: as `12_3` and under its own numeric id
 * (squeue's JobID), with nothing on the wire linking the two. `foldArrayTwins` puts each such twin
 * back on its task (as `ownId`, the only id of a task a v2 path accepts), and `arraySummary` is
 * what an array's id stands for: all its tasks at once.
 */
import { InvalidInputError } from './errors';
import { classifyState, isFinalState } from './jobState';
import { countEachTaskOnce, countIndexes } from './arraySpecs';
import type { Job, JobArrayInfo } from './model';

const ARRAY_ID = /^(\d{1,20})_(?:(\d{1,10})|\[([0-9,:%-]{1,512})\])$/;
/** The array membership an id spells, if any. */
export function arrayInfo(id: string): JobArrayInfo | undefined {
  const m = ARRAY_ID.exec(id);
  if (!m) return undefined;
  if (m[2] !== undefined) return { jobId: m[1], taskId: Number(m[2]), count: 1 };
  const count = countIndexes(m[3]);
  const throttle = /%(\d+)$/.exec(m[3])?.[1];
  return count === undefined ? undefined : { jobId: m[1], pending: m[3], count, ...(throttle ? { throttle: Number(throttle) } : {}) };
}

const PLAIN_ID = /^\d{1,20}$/;

/**
 * `id` when it is a job id (`812`, an array's task `12_3`, its tasks not started `12_[4-9]`);
 * InvalidInputError otherwise, before it reaches a URL: `.` or `..` in a job's path would send a
 * cancel or a metadata read to another route.
 */
export function checkedJobId(id: string): string {
  const problem = jobIdProblem(id);
  if (problem) throw problem;
  return id;
}

/** The InvalidInputError for an id that is not a job id, else undefined. */
function jobIdProblem(id: string): InvalidInputError | undefined {
  if (PLAIN_ID.test(id) || arrayInfo(id)) return undefined;
  return new InvalidInputError(`${JSON.stringify(id.slice(0, 40))} is not a job id: a job id is a number, or an array task such as 12_3`);
}

/** `call` with the id; a rejected promise (never a throw) when `id` is not a job id. */
export function withJobId<T>(id: string, call: (id: string) => Promise<T>): Promise<T> {
  const problem = jobIdProblem(id);
  return problem ? Promise.reject(problem) : call(id);
}

/** `{ array }` for a job whose id names an array member, else nothing (spread into a Job). */
export function withArray(id: string): { array?: JobArrayInfo } {
  const array = arrayInfo(id);
  return array ? { array } : {};
}

/** 0 waiting, 1 started, 2 ended: the twin that is further along is the fresher one. */
function progress(j: Job): number {
  return j.isFinal ? 2 : j.stateClass === 'pending' ? 0 : 1;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Folds the numeric twins of array tasks (see above) into the tasks. A twin and its task share the
 * name, user, partition and start time; tasks that started in the same second pair in index order
 * with the twins in id order (Slurm hands out ids as it starts tasks, lowest index first), except
 * that the array's own id goes to the last task to start. The pairing is a good guess, not a
 * promise: a v2 cancel of one task checks it first (`GET …/jobs/<ownId>` must show `12_3`).
 * A plain pending row under an array's id is squeue's view of the tasks not started: dropped.
 */
export function foldArrayTwins(jobs: Job[]): Job[] {
  let arrays: Set<string> | undefined;
  for (const j of jobs) if (j.array) (arrays ??= new Set()).add(j.array.jobId);
  if (!arrays) return jobs;
  const withPending = new Set<string>();
  for (const j of jobs) if (j.array && j.array.taskId === undefined) withPending.add(j.array.jobId);
  const drop = new Set<Job>();
  // Twins by name, user, partition and start (one key per row, computed once).
  const key = (j: Job): string => `${j.name}\0${j.user ?? ''}\0${j.partition ?? ''}\0${j.startTime ?? ''}`;
  const twins = new Map<string, Job[]>();
  // The twins' start times: a task that started at none of them has no twin, and its key (a new
  // string to hash) is never made.
  const starts = new Set<number | undefined>();
  for (const j of jobs) {
    if (j.array || !/^\d+$/.test(j.id)) continue;
    if (withPending.has(j.id) && j.stateClass === 'pending') drop.add(j);
    else {
      push(twins, key(j), j);
      starts.add(j.startTime);
    }
  }
  if (twins.size) {
    const tasks = new Map<string, Job[]>();
    for (const j of jobs) {
      if (j.array?.taskId === undefined || !starts.has(j.startTime)) continue;
      const k = key(j);
      if (twins.has(k)) push(tasks, k, j);
    }
    const order = (j: Job): number => (arrays.has(j.id) ? Number.MAX_SAFE_INTEGER : Number(j.id));
    const end = (j: Job): string => (j.isFinal ? `${j.endTime ?? ''}` : '-');
    for (const [k, group] of tasks) {
      group.sort((a, b) => a.array!.taskId! - b.array!.taskId!);
      const list = twins.get(k)!.sort((a, b) => order(a) - order(b));
      // Those that ended alike (or are both still on) first, then the rest (the database may not
      // know yet that a task ended).
      const alike = new Map<string, Job[]>();
      for (const task of group) push(alike, end(task), task);
      const queues = new Map([...alike].map(([e, q]) => [e, new TaskQueue(q)]));
      for (const twin of list) {
        const task = queues.get(end(twin))?.take(twin, arrays);
        if (task) {
          fold(task, twin);
          drop.add(twin);
        }
      }
      const all = new TaskQueue(group);
      for (const twin of list) {
        if (drop.has(twin)) continue;
        const task = all.take(twin, arrays);
        if (task) {
          fold(task, twin);
          drop.add(twin);
        }
      }
    }
  }
  return drop.size ? jobs.filter((j) => !drop.has(j)) : jobs;
}

/**
 * The tasks of one group in queue order, handed to twins that come in growing id order (the
 * arrays' own ids last). A twin takes the first free task whose array id is not above its own id
 * (ids grow); a twin that is an array's id takes the first free task of that array only. Each
 * array's tasks are walked once and the arrays a twin may take from are kept in a heap by their
 * first free task, so a group costs O(n log a) for n rows of a arrays, never n × n: 20,000 look-alike
 * rows that fit no task are each turned away at once.
 */
class TaskQueue {
  /** The group's arrays by id, each with its tasks in queue order and a cursor past those taken. */
  private readonly arrays: Lane[];
  private readonly byId = new Map<string, Lane>();
  /**
   * The arrays a twin may take from, by the queue position of their first free task when placed
   * (`Lane.placedAt`). A lane is in it at most once: it is placed when opened, and again only
   * after it was popped.
   */
  private readonly heap: Lane[] = [];
  private opened = 0;

  constructor(queue: Job[]) {
    for (let i = 0; i < queue.length; i++) {
      const task = queue[i];
      const id = task.array!.jobId;
      let lane = this.byId.get(id);
      if (!lane) this.byId.set(id, (lane = { id: Number(id), tasks: [], positions: [], next: 0, placedAt: 0 }));
      lane.tasks.push(task);
      lane.positions.push(i);
    }
    this.arrays = [...this.byId.values()].sort((a, b) => a.id - b.id);
  }

  /** The task `twin` goes with, now counted as taken; undefined when none fits. */
  take(twin: Job, arrayIds: ReadonlySet<string>): Job | undefined {
    if (arrayIds.has(twin.id)) {
      // An array's own id belongs to a task of that array (the last to start), and to no other.
      const lane = this.byId.get(twin.id);
      return lane && this.claim(lane);
    }
    const limit = Number(twin.id);
    while (this.opened < this.arrays.length && this.arrays[this.opened].id <= limit) this.place(this.arrays[this.opened++]);
    while (this.heap.length) {
      const lane = this.pop();
      const head = this.head(lane);
      if (head === undefined) continue;
      if (head !== lane.placedAt) {
        // Its first free task moved on meanwhile (taken by an array's own id): placed again.
        this.place(lane);
        continue;
      }
      const task = this.claim(lane);
      this.place(lane);
      return task;
    }
    return undefined;
  }

  /** The lane's first free task, past it from now on. */
  private claim(lane: Lane): Job | undefined {
    if (this.head(lane) === undefined) return undefined;
    return lane.tasks[lane.next++];
  }

  /** The queue position of the lane's first free task (moving its cursor past taken ones). */
  private head(lane: Lane): number | undefined {
    while (lane.next < lane.tasks.length && lane.tasks[lane.next].ownId !== undefined) lane.next++;
    return lane.positions[lane.next];
  }

  private place(lane: Lane): void {
    const at = this.head(lane);
    if (at === undefined) return;
    lane.placedAt = at;
    const h = this.heap;
    h.push(lane);
    for (let c = h.length - 1; c > 0;) {
      const p = (c - 1) >> 1;
      if (h[p].placedAt <= h[c].placedAt) break;
      [h[p], h[c]] = [h[c], h[p]];
      c = p;
    }
  }

  private pop(): Lane {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      for (let p = 0; ;) {
        const l = 2 * p + 1;
        const r = l + 1;
        let m = p;
        if (l < h.length && h[l].placedAt < h[m].placedAt) m = l;
        if (r < h.length && h[r].placedAt < h[m].placedAt) m = r;
        if (m === p) break;
        [h[p], h[m]] = [h[m], h[p]];
        p = m;
      }
    }
    return top;
  }
}

interface Lane {
  id: number;
  tasks: Job[];
  /** Each task's position in the group's queue. */
  positions: number[];
  next: number;
  /** The position of its first free task when last placed in the heap. */
  placedAt: number;
}

/** The twin's id onto its task, and its state when it is further along. */
function fold(task: Job, twin: Job): void {
  task.ownId = twin.id;
  if (progress(twin) > progress(task)) {
    Object.assign(task, { state: twin.state, stateClass: twin.stateClass, isFinal: twin.isFinal, reason: twin.reason, exitCode: twin.exitCode, endTime: twin.endTime ?? task.endTime });
  }
  task.nodes ??= twin.nodes;
  task.stdoutPath ??= twin.stdoutPath;
  task.stderrPath ??= twin.stderrPath;
}

export interface ArrayCounts {
  running: number;
  pending: number;
  /** Ended, any way. */
  done: number;
  /** Ended other than COMPLETED (failed, cancelled, timed out, ...). */
  failed: number;
  total: number;
  /** The array's `%N` throttle, when its waiting tasks say it. */
  throttle?: number;
}

/** The tasks' counts by state (a row of tasks not started counts for each of them). */
export function arrayCounts(tasks: readonly Job[]): ArrayCounts {
  const c: ArrayCounts = { running: 0, pending: 0, done: 0, failed: 0, total: 0 };
  for (const t of tasks) {
    const n = t.array?.count ?? 1;
    c.total += n;
    if (t.isFinal) {
      c.done += n;
      if (t.stateClass !== 'completed') c.failed += n;
    } else if (t.stateClass === 'pending') c.pending += n;
    else c.running += n;
    if (t.array?.throttle) c.throttle = t.array.throttle;
  }
  return c;
}

/** `12 running · 80 pending (2 at a time) · 8 done (1 failed)`, leaving out what is zero. */
export function describeCounts(c: ArrayCounts): string {
  const parts: string[] = [];
  if (c.running) parts.push(`${c.running} running`);
  if (c.pending) parts.push(`${c.pending} pending${c.throttle ? ` (${c.throttle} at a time)` : ''}`);
  if (c.done) parts.push(`${c.done} done${c.failed ? ` (${c.failed} failed)` : ''}`);
  return parts.join(' · ') || 'no tasks';
}

/**
 * An array as one job: running while any task runs, pending while any waits, and once all ended
 * COMPLETED, or the first other end state (FAILED before CANCELLED before the rest).
 */
export function arraySummary(arrayId: string, tasks: readonly Job[]): Job {
  const c = arrayCounts(tasks);
  const first = tasks[0];
  let state: string;
  if (c.running) state = tasks.find((t) => !t.isFinal && t.stateClass !== 'pending')?.state ?? 'RUNNING';
  else if (c.pending) state = 'PENDING';
  else if (!c.failed) state = 'COMPLETED';
  else {
    const ends = tasks.filter((t) => t.stateClass !== 'completed').map((t) => t.state);
    state = ends.find((s) => s.startsWith('FAILED')) ?? ends.find((s) => s.startsWith('CANCELLED')) ?? ends[0] ?? 'FAILED';
  }
  const exitCode = tasks.reduce<number | undefined>((m, t) => (t.exitCode === undefined ? m : Math.max(m ?? 0, t.exitCode)), undefined);
  // Folded, not spread: an array may have far more tasks than a call has room for arguments.
  let startTime: number | undefined;
  let endTime: number | undefined;
  for (const t of tasks) {
    if (t.startTime !== undefined) startTime = Math.min(startTime ?? t.startTime, t.startTime);
    if (t.endTime !== undefined) endTime = Math.max(endTime ?? t.endTime, t.endTime);
  }
  return {
    ...first,
    id: arrayId,
    state,
    stateClass: classifyState(state, exitCode),
    isFinal: isFinalState(state),
    reason: c.running || !c.pending ? undefined : tasks.find((t) => t.stateClass === 'pending')?.reason,
    exitCode,
    startTime,
    endTime: !c.running && !c.pending ? endTime : undefined,
    array: { jobId: arrayId, count: c.total },
    ownId: undefined,
  };
}

/**
 * One job from the rows a server gave for `id`: an array's id stands for all its tasks (summed
 * up); otherwise the row of that id (or the task it is the own id of).
 */
export function pickJob(id: string, rows: Job[]): Job | undefined {
  const folded = countEachTaskOnce(foldArrayTwins(rows));
  const tasks = folded.filter((j) => j.array?.jobId === id);
  if (tasks.length) return arraySummary(id, tasks);
  return folded.find((j) => j.id === id) ?? folded.find((j) => j.ownId === id);
}

/** True for the one job standing for a whole array (what `arraySummary` and `groupArrays` make). */
export function isArrayParent(j: Job): boolean {
  return j.array !== undefined && j.array.taskId === undefined && j.array.pending === undefined && j.id === j.array.jobId;
}

/**
 * A listing with each array's tasks replaced by one parent (`arraySummary`), where its first task
 * was, and the tasks by array id (in index order; the row of the tasks not started last). One
 * pass and one sort per array.
 */
export function groupArrays(jobs: readonly Job[]): { jobs: Job[]; arrays: Map<string, Job[]> } {
  const arrays = new Map<string, Job[]>();
  for (const j of jobs) if (j.array && !isArrayParent(j)) push(arrays, j.array.jobId, j);
  if (!arrays.size) return { jobs: jobs as Job[], arrays };
  const out: Job[] = [];
  const placed = new Set<string>();
  for (const j of jobs) {
    if (!j.array || isArrayParent(j)) {
      out.push(j);
      continue;
    }
    if (placed.has(j.array.jobId)) continue;
    placed.add(j.array.jobId);
    const tasks = arrays.get(j.array.jobId)!;
    tasks.sort((a, b) => (a.array!.taskId ?? Number.MAX_SAFE_INTEGER) - (b.array!.taskId ?? Number.MAX_SAFE_INTEGER));
    out.push(arraySummary(j.array.jobId, tasks));
  }
  return { jobs: out, arrays };
}
