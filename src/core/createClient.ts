/**
 * The one way to get a client: HTTP layer + token source + the adapter of the profile's API
 * generation (ADAPTERS).
 */
import type { FirecrestApi } from './api';
import { createTokenSource } from './auth/createTokenSource';
import type { TokenSource } from './auth/tokenSource';
import type { ClientEvents, ClientOptions, FirecrestClient } from './client';
import { ApiHttp } from './http/apiHttp';
import { Transport } from './http/transport';
import { silentLogger } from './logger';
import type { ApiVersion, ConnectionProfile } from './model';
import { detectApiVersion } from './probe';
import { FileTransfers } from './transfer/fileTransfers';
import { S3Http } from './transfer/s3Http';
import { V2Staging } from './transfer/v2Staging';
import { V1Api } from './v1/v1Api';
import { V2Api } from './v2/v2Api';

type Adapter = (http: ApiHttp, s3: S3Http, options: ClientOptions) => FirecrestApi;

/** API generation → implementation: every generation has one. */
const ADAPTERS: Record<ApiVersion, Adapter> = {
  v2: (http) => new V2Api(http),
  v1: (http, s3, options) => new V1Api(http, s3, { windowRefreshMs: options.jobWindowRefreshMs }),
};

/** The API object with the client's own members on top; every API method stays the adapter's. */
function asClient(api: FirecrestApi, profile: ConnectionProfile, transport: Transport, http: ApiHttp, s3: S3Http, options: ClientOptions, tokens: TokenSource): FirecrestClient {
  const client = Object.create(api) as FirecrestClient;
  const logger = options.logger ?? silentLogger;
  const staging = api instanceof V1Api ? api.staging : new V2Staging(http, () => client);
  Object.defineProperties(client, {
    profile: { value: profile, enumerable: true },
    accessToken: { value: (signal?: AbortSignal) => tokens.token({ signal }) },
    transfers: { value: new FileTransfers({ api: client, staging, s3, logger }) },
    ping: { value: (o: { timeoutMs?: number; signal?: AbortSignal } = {}) => transport.ping(new URL(`${profile.url.replace(/\/+$/, '')}/status/systems`), o.timeoutMs ?? 4000, o.signal) },
    serverNow: { value: () => transport.serverNow() },
    dispose: { value: async () => { await Promise.all([transport.close(), s3.close(), tokens.close?.()]); } },
  });
  return client;
}

/**
 * Creates the authenticated client of a profile (API v1 or v2). An explicit version does no network
 * I/O here; `auto` probes the server once. Rejects with UnauthorizedError when the profile's
 * credentials are missing or refused.
 */
export async function createClient(options: ClientOptions, events: ClientEvents = {}): Promise<FirecrestClient> {
  const profile = options.profile;
  const transport = new Transport({
    logger: options.logger ?? silentLogger,
    events,
    caFile: profile.caFile,
    insecureSkipTlsVerify: profile.insecureSkipTlsVerify,
    userAgent: options.userAgent,
    secrets: () => [options.clientSecret, options.staticToken],
    slowAfterMs: options.slowAfterMs,
  });
  // Staging-area traffic has its own pools: other hosts, parallel parts, no FirecREST token.
  const s3 = new S3Http({ logger: options.logger ?? silentLogger, caFile: profile.caFile, insecureSkipTlsVerify: profile.insecureSkipTlsVerify, userAgent: options.userAgent });
  let tokens: TokenSource | undefined;
  try {
    tokens = createTokenSource(options, transport, events);
    const http = new ApiHttp(transport, tokens, {
      baseUrl: profile.url,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      listingTimeoutMs: options.listingTimeoutMs ?? 120_000,
      maxRateLimitRetries: options.maxRateLimitRetries ?? 5,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
      events,
      logger: options.logger,
    });
    const version = profile.apiVersion === 'auto' ? await detectApiVersion(http) : profile.apiVersion;
    return asClient(ADAPTERS[version](http, s3, options), profile, transport, http, s3, options, tokens);
  } catch (e) {
    await Promise.all([transport.close(), s3.close(), tokens?.close?.()]);
    throw e;
  }
}
