/**
 * Runtime validation of what the accounting webview sends. The schema is typed against the
 * protocol union, so a change on one side that the other lacks fails to compile.
 */
import { z } from 'zod';
import type { AccountingToHost } from '../protocol';

/** Jobs one Efficiency request asks about at most (one side-car's sacct: core's MAX_EFFICIENCY_JOBS). */
export const MAX_EFFICIENCY_JOBS = 200;

const text = (max: number) => z.string().max(max);
const requestId = z.number().int().nonnegative();

const form = z.strictObject({
  profile: text(200),
  system: text(200),
  range: z.enum(['today', '7d', '30d', 'custom']),
  from: z.union([z.literal(''), z.string().regex(/^\d{4}-\d{2}-\d{2}$/)]),
  to: z.union([z.literal(''), z.string().regex(/^\d{4}-\d{2}-\d{2}$/)]),
  jobIds: text(10_000),
  state: z.enum(['', 'pending', 'running', 'completed', 'failed', 'cancelled', 'other']),
  account: text(200),
  partition: text(200),
  name: text(500),
  allUsers: z.boolean(),
  transferJobs: z.boolean().optional(),
});

export const accountingToHost: z.ZodType<AccountingToHost> = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({ type: z.literal('query'), requestId, form }),
  z.strictObject({ type: z.literal('export'), requestId, ids: z.array(text(100)).max(1_000_000) }),
  z.strictObject({ type: z.literal('openJob'), id: text(100).min(1), what: z.enum(['details', 'output']) }),
  z.strictObject({ type: z.literal('efficiency'), requestId, ids: z.array(text(100).min(1)).min(1).max(MAX_EFFICIENCY_JOBS) }),
  z.strictObject({ type: z.literal('command'), command: z.enum(['addConnection', 'signIn']) }),
  z.strictObject({ type: z.literal('rendered'), requestId, rows: z.number().int().nonnegative() }),
]);
