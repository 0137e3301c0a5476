/**
 * How the extension creates clients: core's `createClient`. Kept in its own module so the
 * composition root stays a list of constructions.
 */
import type { ClientFactory } from './connections';
import { NotSupportedError } from '../core/errors';

export function createClientFactory(): ClientFactory {
  // src/core/index.ts (createClient) is being written in parallel; until it lands every connect
  // fails with this message instead of the extension failing to build.
  return async () => {
    throw new NotSupportedError('The FirecREST client core is not available in this build yet.');
  };
}
