/**
 * The v1 tasks service (§2.7): an in-memory map of task objects per gateway run, with the
 * 3-character status codes and their description texts. Routes live in task-routes.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TASK_TEXT: Record<string, string> = {
  '100': 'Queued',
  '101': 'In progress',
  '110': 'Waiting for Form URL from Object Storage to be retrieved',
  '111': 'Form URL from Object Storage received',
  '112': 'Object Storage confirms that upload to Object Storage has finished',
  '113': 'Download from Object Storage to server has started',
  '114': 'Download from Object Storage to server has finished',
  '115': 'Download from Object Storage error',
  '116': 'Started upload from filesystem to Object Storage',
  '117': 'Upload from filesystem to Object Storage has finished succesfully',
  '118': 'Upload from filesystem to Object Storage has finished with errors',
  '200': 'Finished successfully',
  '300': 'Deleted on request',
  '301': 'Marked for expiration in persistence',
  '302': 'Task not longer valid',
  '400': 'Finished with errors',
};

export type TaskStatus = keyof typeof TASK_TEXT;

export interface Task {
  task_id: string;
  hash_id: string;
  user: string;
  status: string;
  description: string;
  data: unknown;
  service: 'compute' | 'storage';
  system: string;
  created_at: string;
  updated_at: string;
  last_modify: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:MM:SS`, local time, no zone (as the real tasks service stores it). */
export function localTimestamp(d = new Date()): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export class TaskStore {
  private readonly tasks = new Map<string, Task>();
  private counter = 0;
  /** Per run, so ids of two gateway runs never collide (the real server hashes user + counter). */
  private readonly salt = randomBytes(8).toString('hex');

  /** A new task, visible at once with status 100 and data "Queued". */
  create(user: string, service: Task['service'], system: string): Task {
    const id = createHash('md5').update(`${user}-${this.salt}-${++this.counter}`).digest('hex');
    const now = localTimestamp();
    const task: Task = {
      task_id: id, hash_id: id, user, status: '100', description: TASK_TEXT['100'], data: 'Queued',
      service, system, created_at: now, updated_at: now, last_modify: now,
    };
    this.tasks.set(id, task);
    return task;
  }

  get(id: string): Task | undefined {
    return this.tasks.get(id);
  }

  /** Sets status (and its description) and data; unknown ids are ignored (the task may be gone). */
  update(id: string, status: TaskStatus, data: unknown): void {
    const task = this.tasks.get(id);
    if (!task) return;
    const now = localTimestamp();
    Object.assign(task, { status, description: TASK_TEXT[status], data, updated_at: now, last_modify: now });
  }

  ofUser(user: string): Task[] {
    return [...this.tasks.values()].filter((t) => t.user === user);
  }
}

/**
 * Runs `work` after the creating request has been answered: 200 with its result, 400 with the error
 * text on failure (the real workers store the error string as `data`).
 */
export function runTask(tasks: TaskStore, id: string, work: () => Promise<unknown>): void {
  setImmediate(() => {
    work().then(
      (data) => tasks.update(id, '200', data),
      (e: unknown) => tasks.update(id, '400', e instanceof Error ? e.message : String(e)),
    );
  });
}

/** The answer of every call that created a task. */
export function taskCreated(task: Task, withUrl = true): Record<string, string> {
  return withUrl ? { success: 'Task created', task_id: task.task_id, task_url: `/tasks/${task.task_id}` } : { success: 'Task created', task_id: task.task_id };
}
