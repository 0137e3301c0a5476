/**
 * How the extension creates clients: core's `createClient`. A seam of its own so that the
 * connection service can be given another factory where a fault cannot be produced for real.
 */
import { createClient } from '../core/index';
import type { ClientFactory } from './connections';

export function createClientFactory(): ClientFactory {
  return createClient;
}
