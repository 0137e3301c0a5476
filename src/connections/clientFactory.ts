/**
 * How the extension creates clients: core's `createClient`, loaded on first use. The HTTP stack,
 * the response schemas and the API adapters (undici, zod, v1/, v2/) are most of the extension's
 * code; scripts/build.mjs puts them in a bundle of their own (dist/extension-client.js) that this
 * `import()` requires, so activation neither reads nor compiles them. The client's error classes
 * come from the shared bundle, the same classes the rest of the extension tests with `instanceof`.
 * Also a seam: tests may hand the service another factory.
 */
import type { ClientFactory } from './connections';

export function createClientFactory(): ClientFactory {
  return async (options, events) => {
    const { createClient } = await import('../core/createClient.js');
    return createClient(options, events);
  };
}
