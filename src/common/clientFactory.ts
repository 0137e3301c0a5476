/**
 * How the extension creates clients: core's `createClient`, loaded on first use. The HTTP stack and
 * the response schemas (undici, zod) are most of the bundle; deferring their evaluation to the first
 * connection keeps activation cheap. Also a seam: tests may hand the service another factory.
 */
import type { ClientFactory } from './connections';

export function createClientFactory(): ClientFactory {
  return async (options, events) => {
    const { createClient } = await import('../core/createClient.js');
    return createClient(options, events);
  };
}
