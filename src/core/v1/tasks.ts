/**
 * v1 asynchronous tasks (§2.7): creation envelopes, polling `GET /tasks/{id}` with back-off,
 * progress reports, an overall time-out, cancellation, and the task's failure → typed error.
 */
import type { CallOptions, V1TaskInfo } from '../api';
import { FirecrestError, NotFoundError, PermissionDeniedError, ServerError, TimeoutError } from '../errors';
import { redact } from '../http/redact';
import { sleep } from '../http/sleep';
import type { TransportResponse } from '../http/transport';
import type { Progress } from '../model';
import { parseBody } from '../v2/parse';
import type { V1Http } from './v1Http';
import { TaskCreatedW, TaskListW, TaskOneW, type TaskWire } from './wire';

/** Options of one task wait. */
export interface TaskWaitOptions extends CallOptions {
  onProgress?: (p: Progress) => void;
  /** Overall limit in ms (default 10 minutes). */
  overallTimeoutMs?: number;
  /** When the wait is over; default: any status ≥ 200 (final in the generic sense of §2.7.3). */
  until?: (status: number) => boolean;
}

/** Sleeps in ms between polls: 0.2 s doubling up to 2 s. */
export function* taskSleeps(): Generator<number, never> {
  let ms = 200;
  for (;;) {
    yield ms;
    ms = Math.min(ms * 2, 2000);
  }
}

function dataText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    for (const k of ['error', 'msg', 'description']) if (typeof d[k] === 'string' && d[k]) return d[k];
  }
  return data === undefined || data === null ? '' : JSON.stringify(data);
}

/** The typed error a failed task's `data` text describes. */
export function taskError(t: TaskWire, id: string): FirecrestError {
  const text = redact(dataText(t.data));
  const what = `Task ${id} ${t.status === 115 ? 'failed to move the staged upload into place' : t.status === 118 ? 'failed to stage the file for download' : 'finished with errors'}`;
  const message = text ? `${what}: ${text}` : what;
  const details = { route: 'GET /tasks/{id}', causedBy: text ? [text] : undefined };
  if (/permission|not permitted/i.test(text)) return new PermissionDeniedError(message, details);
  if (/no such file|does not exist|not found|invalid job ?id/i.test(text)) return new NotFoundError(message, details);
  if (/timeout signal|timed out/i.test(text)) return new TimeoutError(message, details);
  return new ServerError(message, details);
}

/** Tasks of one connection. */
export class Tasks {
  constructor(private readonly v1: V1Http) {}

  /** The task id of a creation answer. */
  static created(res: TransportResponse, label: string): string {
    return parseBody(TaskCreatedW, res, label).task_id;
  }

  private static toTask(id: string, t: TaskWire): V1TaskInfo {
    return { id, status: t.status, description: t.description ?? '', service: t.service, system: t.system, data: t.data, createdAt: t.created_at, updatedAt: t.updated_at };
  }

  /** One task (`GET /tasks/{id}`); NotFoundError when unknown or expired. */
  async get(id: string, call?: CallOptions): Promise<TaskWire> {
    return (await this.v1.json(TaskOneW, 'GET', '/tasks/{id}', { params: { id }, expect: [200], call })).task;
  }

  /** The caller's tasks (`GET /tasks`), newest first. */
  async list(call?: CallOptions): Promise<V1TaskInfo[]> {
    const body = await this.v1.json(TaskListW, 'GET', '/tasks', { expect: [200], call });
    return Object.entries(body.tasks)
      .map(([id, t]) => Tasks.toTask(id, t))
      .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  }

  /**
   * Polls until `until` holds; rejects with the typed error of a failed task (status ≥ 400, 115,
   * 118), TimeoutError after `overallTimeoutMs`, CancelledError when the signal aborts.
   */
  async wait(id: string, o: TaskWaitOptions = {}): Promise<TaskWire> {
    const until = o.until ?? ((s: number) => s >= 200);
    const limit = o.overallTimeoutMs ?? 600_000;
    const started = Date.now();
    const sleeps = taskSleeps();
    let last = -1;
    for (;;) {
      const t = await this.get(id, { signal: o.signal, timeoutMs: o.timeoutMs });
      if (t.status !== last) {
        last = t.status;
        o.onProgress?.({ phase: String(t.status), message: t.description ?? `Task ${id}: ${t.status}` });
      }
      if (t.status >= 400 || t.status === 115 || t.status === 118) throw taskError(t, id);
      if (until(t.status)) return t;
      const next = sleeps.next().value;
      if (Date.now() - started + next > limit) throw new TimeoutError(`Task ${id} did not finish within ${Math.round(limit / 1000)} s (last status ${t.status} ${t.description ?? ''})`, { route: 'GET /tasks/{id}' });
      await sleep(next, o.signal);
    }
  }

  /** Reads the task id of `res` and waits for the task; resolves with the finished task. */
  async run(res: TransportResponse, label: string, o: TaskWaitOptions = {}): Promise<TaskWire> {
    return this.wait(Tasks.created(res, label), o);
  }
}
