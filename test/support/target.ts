/**
 * The deployment a suite talks to, from the environment set by scripts/with-gateway.mjs (the local
 * gateway) or by a site (FIRECREST_URL etc. for its own FirecREST). Tests that need the local
 * gateway's fault switches or second user call `gatewayOnly()` and skip elsewhere.
 */
export interface GatewayInfo {
  v2: string;
  v1?: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  systems: string[];
  user?: string;
  scheduler?: 'slurm' | 'local';
  /** `upstream` when the gateway reproduces the upstream servers' behaviour (--compat upstream). */
  compat?: 'none' | 'upstream';
  stateDir?: string;
  admin?: string;
  adminToken?: string;
  clients?: { clientId: string; clientSecret: string; user: string }[];
  /** The built-in identity provider (on unless the gateway ran with --no-idp). */
  issuer?: string;
  publicClientId?: string;
  mfa?: boolean;
  idpUsers?: { login: string; password: string; user: string; totpSecret?: string }[];
}

export interface Target {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  system: string;
  apiVersion: 'v1' | 'v2';
  /** Present only when the suite runs against the local gateway. */
  gateway?: GatewayInfo;
  /**
   * A second user's client credentials: the local gateway's other client, or FIRECREST_CLIENT_ID_2
   * and FIRECREST_CLIENT_SECRET_2 on a deployment (`user` is then learnt from the server).
   */
  secondUser?: { clientId: string; clientSecret: string; user?: string };
}

/** Why a test of another user's files cannot run here, or false. */
export function secondUserMissing(t: Target): string | false {
  return t.secondUser ? false : 'needs a second user: set FIRECREST_CLIENT_ID_2 and FIRECREST_CLIENT_SECRET_2';
}

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the suite through scripts/with-gateway.mjs, or set FIRECREST_URL, FIRECREST_TOKEN_URL, FIRECREST_CLIENT_ID, FIRECREST_CLIENT_SECRET and FIRECREST_SYSTEM for an existing deployment`);
  return v;
}

export function target(): Target {
  const gw = process.env.FIRECREST_GATEWAY ? (JSON.parse(process.env.FIRECREST_GATEWAY) as GatewayInfo) : undefined;
  const api = (process.env.FIRECREST_API_VERSION ?? 'v2').startsWith('1') || process.env.FIRECREST_API_VERSION === 'v1' ? 'v1' : 'v2';
  return {
    url: need('FIRECREST_URL').replace(/\/+$/, ''),
    tokenUrl: need('FIRECREST_TOKEN_URL'),
    clientId: need('FIRECREST_CLIENT_ID'),
    clientSecret: need('FIRECREST_CLIENT_SECRET'),
    system: need('FIRECREST_SYSTEM'),
    apiVersion: api,
    gateway: gw,
    secondUser: gw?.clients?.find((c) => c.user !== (gw.user ?? ''))
      ?? (process.env.FIRECREST_CLIENT_ID_2 && process.env.FIRECREST_CLIENT_SECRET_2 ? { clientId: process.env.FIRECREST_CLIENT_ID_2, clientSecret: process.env.FIRECREST_CLIENT_SECRET_2 } : undefined),
  };
}

/** The `skip` option for node:test / a reason for mocha: set when not on the local gateway. */
export function gatewayOnly(): string | false {
  return process.env.FIRECREST_GATEWAY ? false : 'needs the local gateway (its fault switches and admin API)';
}
