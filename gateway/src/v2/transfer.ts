/** v2 filesystem transfer routes (`/filesystem/{system}/transfer/...`); being written: placeholder registers nothing yet. */
import type { FastifyInstance } from 'fastify';
import type { V2Deps } from './context';

export async function transferRoutes(_app: FastifyInstance, _deps: V2Deps): Promise<void> {
  // Registered by server.ts under the prefix /filesystem/:system/transfer.
}
