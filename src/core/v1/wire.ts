/**
 * v1 wire shapes (§2): the envelopes of each service and the task object. Schemas stay loose where
 * the server's values vary by version (numbers as strings, `data` per operation).
 */
import { z } from 'zod';

/** Utilities answer `{"description", "output"}`. */
export const OutputW = z.object({ description: z.string().optional(), output: z.unknown() });
/** Status answers `{"description", "out"}`. */
export const OutW = z.object({ description: z.string().optional(), out: z.unknown() });
/** Compute and storage task creation: `{"success", "task_id", "task_url"?}`. */
export const TaskCreatedW = z.object({ task_id: z.string().min(1) });

export const TaskW = z.object({
  task_id: z.string().optional(),
  hash_id: z.string().optional(),
  status: z.union([z.string(), z.number()]).transform((s) => Number(s)),
  description: z.string().optional(),
  data: z.unknown().optional(),
  service: z.string().optional(),
  system: z.string().optional(),
  user: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type TaskWire = z.infer<typeof TaskW>;
export const TaskOneW = z.object({ task: TaskW });
export const TaskListW = z.object({ tasks: z.record(z.string(), TaskW) });

export const LsEntryW = z.object({
  name: z.string(),
  type: z.string(),
  link_target: z.string().nullish(),
  user: z.string(),
  group: z.string(),
  permissions: z.string(),
  last_modified: z.string(),
  size: z.union([z.string(), z.number()]),
});
export const LsW = z.object({ output: z.array(LsEntryW) });

export const StatW = z.object({
  output: z.object({ mode: z.number(), ino: z.number(), dev: z.number(), nlink: z.number(), uid: z.number(), gid: z.number(), size: z.number(), atime: z.number(), mtime: z.number(), ctime: z.number() }),
});
export const TextOutW = z.object({ output: z.string() });

const IdName = z.object({ name: z.string(), id: z.union([z.string(), z.number()]).transform(String) });
export const WhoamiW = z.object({ output: z.object({ user: IdName, group: IdName, groups: z.array(IdName) }) });

/** A loose record: task `data` objects whose keys are all strings (QueueJob, AcctJob, JobSubmit). */
export const StrRecord = z.record(z.string(), z.unknown());
