/**
 * Runtime validation of what the Transfer Centre webview sends, typed against the protocol union
 * so that a change on one side that the other lacks fails to compile.
 */
import { z } from 'zod';
import type { TransfersToHost } from '../protocol';

const requestId = z.number().int().nonnegative();
const id = z.number().int().positive();

export const transfersToHost: z.ZodType<TransfersToHost> = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({ type: z.literal('action'), requestId, action: z.enum(['cancel', 'retry', 'resume', 'open']), id }),
  z.strictObject({ type: z.literal('clear'), requestId }),
  z.strictObject({
    type: z.literal('rendered'),
    rows: z.array(z.strictObject({
      id,
      state: z.enum(['running', 'done', 'failed', 'cancelled']),
      percent: z.number().min(0).max(100).optional(),
      verified: z.boolean().optional(),
    })).max(10_000),
  }),
]);
