/**
 * The MCP server's connection, from the same `FIRECREST_*` variables the test suites read:
 * FIRECREST_URL, and FIRECREST_TOKEN_URL with FIRECREST_CLIENT_ID and FIRECREST_CLIENT_SECRET
 * (client credentials), or FIRECREST_TOKEN_COMMAND, or FIRECREST_TOKEN (a static token);
 * FIRECREST_API_VERSION (v1, v2 or auto), FIRECREST_SYSTEM (the default system), FIRECREST_CA_FILE.
 * Writes (submit, cancel, upload, write) run only with `--allow-writes` (or
 * FIRECREST_MCP_ALLOW_WRITES=1): the user decides, read-only by default.
 */
import type { ApiVersionSetting, ConnectionProfile } from '../core/model';
import { brokerTokenCommand, TOKEN_SOCKET_ENV } from './tokenClient';

export interface McpConfig {
  profile: ConnectionProfile;
  /** The client secret (client credentials) or the static token. */
  secret?: string;
  defaultSystem?: string;
  allowWrites: boolean;
}

/** What is wrong with the configuration, in words, or the configuration. */
/** `selfPath`: this program's script (the token helper runs it again). */
export function readConfig(env: NodeJS.ProcessEnv, argv: readonly string[], selfPath = process.argv[1] ?? ''): McpConfig | string {
  const url = env.FIRECREST_URL?.trim();
  if (!url) return 'FIRECREST_URL is not set: name the FirecREST API, e.g. https://api.example.org/firecrest/v2';
  const api = (env.FIRECREST_API_VERSION ?? 'auto').trim();
  if (!['v1', 'v2', 'auto'].includes(api)) return `FIRECREST_API_VERSION is "${api}": use v1, v2 or auto`;
  const name = env.FIRECREST_CONNECTION_NAME?.trim() || hostOf(url);
  const base = { name, url, apiVersion: api as ApiVersionSetting, ...(env.FIRECREST_CA_FILE ? { caFile: env.FIRECREST_CA_FILE } : {}), ...(env.FIRECREST_SYSTEM ? { defaultSystem: env.FIRECREST_SYSTEM } : {}) };
  const allowWrites = argv.includes('--allow-writes') || env.FIRECREST_MCP_ALLOW_WRITES === '1';
  const common = { defaultSystem: env.FIRECREST_SYSTEM || undefined, allowWrites };
  // Started by the VS Code extension: tokens come from it, through the token helper of this program.
  if (env[TOKEN_SOCKET_ENV]) return { ...common, profile: { ...base, tokenCommand: brokerTokenCommand(process.execPath, selfPath) } };
  if (env.FIRECREST_TOKEN_COMMAND) return { ...common, profile: { ...base, tokenCommand: env.FIRECREST_TOKEN_COMMAND } };
  if (env.FIRECREST_TOKEN_URL || env.FIRECREST_CLIENT_ID || env.FIRECREST_CLIENT_SECRET) {
    const missing = ['FIRECREST_TOKEN_URL', 'FIRECREST_CLIENT_ID', 'FIRECREST_CLIENT_SECRET'].filter((k) => !env[k]);
    if (missing.length) return `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: client credentials need the token URL, the client id and its secret`;
    return { ...common, profile: { ...base, tokenUrl: env.FIRECREST_TOKEN_URL, clientId: env.FIRECREST_CLIENT_ID }, secret: env.FIRECREST_CLIENT_SECRET };
  }
  if (env.FIRECREST_TOKEN) return { ...common, profile: base, secret: env.FIRECREST_TOKEN };
  return 'no credentials: set FIRECREST_TOKEN_URL, FIRECREST_CLIENT_ID and FIRECREST_CLIENT_SECRET, or FIRECREST_TOKEN_COMMAND, or FIRECREST_TOKEN';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
