/**
 * `firecrest-mcp`: the FirecREST MCP server over stdio (see config.ts for its variables), or, as
 * `firecrest-mcp token`, the helper that fetches an access token from the VS Code extension that
 * started the server (tokenBroker.ts), so that no secret is handed to the server process.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createClient } from '../core/createClient';
import type { FirecrestClient } from '../core/client';
import { InvalidInputError } from '../core/errors';
import type { ToolContext } from '../core/tools/index';
import { readInsideFolder } from '../core/tools/localFiles';
import { readConfig } from './config';
import { createMcpServer } from './server';
import { printBrokerToken } from './tokenClient';

declare const FIRECREST_VERSION: string | undefined;
const VERSION = typeof FIRECREST_VERSION === 'string' ? FIRECREST_VERSION : '0.0.0-dev';

async function serve(): Promise<void> {
  const config = readConfig(process.env, process.argv.slice(2));
  if (typeof config === 'string') {
    process.stderr.write(`firecrest-mcp: ${config}\n`);
    process.exit(2);
  }
  const viaToken = !config.profile.tokenUrl && !config.profile.tokenCommand;
  let client: Promise<FirecrestClient> | undefined;
  const connect = (): Promise<FirecrestClient> => (client ??= createClient({
    profile: config.profile,
    ...(viaToken ? { staticToken: config.secret } : { clientSecret: config.secret }),
    userAgent: `firecrest-mcp/${VERSION}`,
  }).catch((e: unknown) => { client = undefined; throw e; }));
  const ctx: ToolContext = {
    connections: () => [{ name: config.profile.name, url: config.profile.url, state: 'configured' }],
    client: (name) => (name && name !== config.profile.name ? Promise.reject(new InvalidInputError(`there is no connection ${name}: this server has ${config.profile.name}`)) : connect()),
    readLocal: async (path) => ({ data: await readInsideFolder(process.cwd(), path), shownAs: path }),
    defaultSystem: config.defaultSystem,
  };
  const server = createMcpServer(() => ctx, { allowWrites: config.allowWrites, version: VERSION });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`firecrest-mcp ${VERSION}: ${config.profile.url}, ${config.allowWrites ? 'writes allowed' : 'read-only'}\n`);
  const close = (): void => {
    void server.close().finally(() => void client?.then((c) => c.dispose()).catch(() => undefined).finally(() => process.exit(0)));
  };
  process.stdin.on('close', close);
  process.on('SIGTERM', close);
}

if (process.argv[2] === 'token') {
  printBrokerToken(process.env).then((code) => process.exit(code), () => process.exit(1));
} else {
  serve().catch((e: unknown) => {
    process.stderr.write(`firecrest-mcp: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
