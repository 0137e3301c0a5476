/**
 * Builds the gateway's HTTP server: the token endpoint, the admin API and the v2 API with its
 * cross-cutting behaviour (path lower-casing, F7T headers, bearer auth, system lookup, error body,
 * 404/405, fault switches, request statistics).
 */
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { adminRoutes } from './admin';
import { answered, closedWhileIdle } from './compat';
import type { TokenService } from './auth';
import { tokenRoute } from './auth-route';
import type { Faults } from './faults';
import { ApiError, v2ErrorBody } from './http/errors';
import type { HealthChecker } from './http/health';
import { openApiDocument } from './http/openapi';
import { RouteIndex } from './http/route-index';
import type { Stats } from './http/stats';
import { v2ErrorHandler, v2NotFound } from './http/v2-handlers';
import type { SchedulerOutage } from './scheduler/outage';
import type { UserTable } from './setup';
import { computeRoutes } from './v2/compute';
import type { V2Deps } from './v2/context';
import { opsRoutes } from './v2/ops';
import { requireHealthyScheduler } from './v2/availability';
import { statusRoutes } from './v2/status';
import { transferRoutes } from './v2/transfer';
import { registerV1 } from './v1/index';
import type { IdpStore } from './idp/adapter';
import { idpRoutes, type IdpHolder } from './idp/routes';
import type { IdpRuntime } from './idp/token-hooks';
import { PassThrough, Readable, Transform } from 'node:stream';

export interface ServerDeps {
  v2: V2Deps;
  health: HealthChecker;
  users: UserTable;
  tokens: TokenService;
  faults: Faults;
  stats: Stats;
  /** The scheduler outage switch of `PUT /_admin/scheduler`. */
  outage: SchedulerOutage;
  adminToken: string;
  /** Mutable at run time through `PUT /_admin/settings`. */
  runtime: { tokenLifetimeSeconds: number };
  /** Log one line per request on stderr (never headers or bodies). */
  verbose: boolean;
  /** The identity provider under /idp, when it is on. */
  idp?: IdpHolder & { store: IdpStore; runtime: IdpRuntime };
}

/** Headers of a request must have arrived within this long after its first byte. */
export const HEADERS_TIMEOUT_MS = 10_000;

/** The API prefixes fault switches apply to (not the token endpoint, not /_admin). */
const FAULTY = /^\/(v1|v2|s3)(\/|$)/;

/** The v2 server lower-cases the whole path before routing; the query stays untouched. */
/** A client's `X-Request-ID`, when it is a plain token (never echoed otherwise). */
function requestIdOf(req: FastifyRequest): string | undefined {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(id) ? id : undefined;
}

function lowerCaseV2(req: { url?: string }): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const lower = path.toLowerCase();
  if (lower === '/v2' || lower.startsWith('/v2/')) return q < 0 ? lower : lower + url.slice(q);
  return url;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

const dropAfter = new WeakSet<FastifyRequest>();
/** Requests whose streamed answer is cut after this many bytes (the cutBody fault). */
const cutBody = new WeakMap<FastifyRequest, number>();

/** `payload` passed on up to `limit` bytes; then the connection is dropped, as by a network failure. */
function cutAfter(payload: Readable, limit: number, socket: { destroy(): void }): Readable {
  let sent = 0;
  const out = new PassThrough();
  payload.on('data', (chunk: Buffer) => {
    if (sent >= limit) return;
    const part = chunk.subarray(0, limit - sent);
    sent += part.length;
    out.write(part);
    if (sent >= limit) {
      payload.destroy();
      // Flushed first, so the client has the bytes and then sees the connection end.
      setTimeout(() => socket.destroy(), 50);
    }
  });
  payload.on('end', () => out.end());
  payload.on('error', () => socket.destroy());
  return out;
}

/** Requests whose streamed answer has its first byte flipped (the corruptBody fault). */
const corruptBody = new WeakSet<FastifyRequest>();

/** `payload` with the bits of its first byte flipped. */
function corrupted(payload: Readable): Readable {
  let first = true;
  return payload.pipe(new Transform({
    transform(chunk: Buffer, _e, done) {
      if (first && chunk.length > 0) {
        first = false;
        const copy = Buffer.from(chunk);
        copy[0] ^= 0xff;
        done(null, copy);
      } else done(null, chunk);
    },
  }));
}

async function applyFaults(faults: Faults, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const subject = `${req.method} ${pathOf(req.url)}`;
  if (faults.hit('dropBefore', subject)) {
    reply.hijack();
    req.raw.socket.destroy();
    return reply;
  }
  if (faults.hit('hold', subject)) await faults.untilReleased();
  if (faults.hit('latency', subject)) await new Promise((r) => setTimeout(r, faults.latencyMs()));
  if (faults.hit('rateLimit', subject)) {
    const after = faults.retryAfterSeconds();
    return reply.code(429).header('Retry-After', String(after)).send(v2ErrorBody(`Too Many Requests: retry after ${after} s`));
  }
  if (faults.hit('error', subject)) {
    const { status, message } = faults.errorStatus();
    return reply.code(status).send(v2ErrorBody(message));
  }
  if (faults.hit('dropAfter', subject)) dropAfter.add(req);
  if (faults.hit('cutBody', subject)) cutBody.set(req, faults.cutAfterBytes());
  if (faults.hit('corruptBody', subject)) corruptBody.add(req);
  return undefined;
}

function v2Api(deps: ServerDeps, index: RouteIndex) {
  const { tokens, users, v2 } = deps;
  return async (api: FastifyInstance): Promise<void> => {
    api.setErrorHandler(v2ErrorHandler);
    api.setNotFoundHandler(v2NotFound(index));
    api.addHook('onRequest', async (req) => {
      if (req.is404 || req.routeOptions.config?.public) return;
      const header = req.headers.authorization;
      if (!header || !/^bearer\s+/i.test(header)) throw new ApiError(401, 'Not authenticated', { headers: { 'WWW-Authenticate': 'Bearer' } });
      const token = header.replace(/^bearer\s+/i, '').trim();
      const username = await tokens.verify(token);
      const user = users.users.get(username);
      if (!user) throw new ApiError(401, 'Access token is invalid.');
      req.f7tUser = user;
      const system = (req.params as { system?: string } | undefined)?.system;
      if (system !== undefined) {
        const runtime = v2.systems.get(system);
        if (!runtime) throw new ApiError(404, 'System not found');
        req.f7tSystem = runtime;
      }
    });
    api.get('/openapi.json', { config: { public: true } }, async () => openApiDocument(index, '/v2', v2.settings.appVersion));
    await api.register(async (i) => statusRoutes(i, { ...v2, health: deps.health }), { prefix: '/status' });
    const schedulerNeeded = requireHealthyScheduler(deps.health);
    await api.register(async (i) => { i.addHook('preHandler', schedulerNeeded); await computeRoutes(i, v2); }, { prefix: '/compute/:system/jobs' });
    await api.register(async (i) => opsRoutes(i, v2), { prefix: '/filesystem/:system/ops' });
    await api.register(async (i) => { i.addHook('preHandler', schedulerNeeded); await transferRoutes(i, v2); }, { prefix: '/filesystem/:system/transfer' });
  };
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const index = new RouteIndex();
  const app = Fastify({
    logger: false, rewriteUrl: lowerCaseV2, forceCloseConnections: true, return503OnClosing: false,
    // A client that trickles its headers, or stalls mid-body, does not hold a connection for long:
    // headers must be complete within 10 s, a socket idle for 2 minutes is closed (longer than the
    // 72 s keep-alive, so an idle pooled connection is closed by keep-alive first, never mid-reuse),
    // and a whole request (a 2 GiB staged part included) must arrive within 30 minutes.
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    connectionTimeout: 120_000,
    requestTimeout: 30 * 60_000,
  });
  app.addHook('onRoute', (route) => index.add(route));
  app.server.on('connection', () => deps.stats.countConnection());

  await app.register(formbody);
  // Global so the ops upload route can read its `file` part; +1 lets it detect "too large" itself.
  await app.register(multipart, { limits: { fileSize: deps.v2.settings.maxOpsFileSize + 1 } });

  /** v1 asks for given jobs on the listing's own route (`?jobs=`): counted apart, as v2's by-id route is. */
  const byIds = (req: { routeOptions: { url?: string }; query: unknown }): string | undefined =>
    req.routeOptions.url === '/v1/compute/jobs' && typeof (req.query as { jobs?: unknown } | undefined)?.jobs === 'string' ? 'jobs' : undefined;
  app.addHook('onRequest', async (req, reply) => {
    req.f7tCompat = deps.v2.settings.compat;
    if (closedWhileIdle(req, reply, deps.v2.settings.idleCloseSeconds)) {
      deps.stats.countIdleDrop();
      return reply;
    }
    const isApi = FAULTY.test(req.url);
    // Token requests go to the identity provider in a real deployment: counted apart from API calls.
    if (isApi) deps.stats.countRequest(req.method, req.routeOptions.url, byIds(req));
    else if (req.url.startsWith('/auth/') || req.url.startsWith('/idp/token')) deps.stats.countTokenRequest();
    if (deps.verbose) (req as { f7tStart?: number }).f7tStart = performance.now();
    if (isApi && deps.faults.active) return applyFaults(deps.faults, req, reply);
    return undefined;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('F7T-AppVersion', deps.v2.settings.appVersion);
    // The client's request id, echoed (and in the verbose log line) so both sides can name a call.
    const id = requestIdOf(req);
    if (id) reply.header('X-Request-ID', id);
    reply.header('F7T-Timestamp', String(Date.now() / 1000));
    if (dropAfter.has(req)) req.raw.socket.destroy();
    const cut = cutBody.get(req);
    if (cut !== undefined && payload instanceof Readable) return cutAfter(payload, cut, req.raw.socket);
    if (corruptBody.has(req) && payload instanceof Readable) return corrupted(payload);
    return payload;
  });
  app.addHook('onResponse', async (req) => answered(req.raw.socket));
  if (deps.verbose) {
    app.addHook('onResponse', async (req, reply) => {
      const started = (req as { f7tStart?: number }).f7tStart ?? performance.now();
      const id = requestIdOf(req);
      console.error(`[gateway] ${req.method} ${pathOf(req.url)} ${reply.statusCode} ${(performance.now() - started).toFixed(1)} ms${id ? ` [request ${id}]` : ''}`);
    });
  }
  app.setNotFoundHandler((_req, reply) => reply.code(404).send(v2ErrorBody('Not Found')));

  await app.register(async (i) => tokenRoute(i, { tokens: deps.tokens, clients: deps.users.clients, lifetimeSeconds: () => deps.runtime.tokenLifetimeSeconds }));
  await app.register(async (i) => adminRoutes(i, { ...deps, idpStore: deps.idp?.store, idpRuntime: deps.idp?.runtime }), { prefix: '/_admin' });
  const idp = deps.idp;
  if (idp) await app.register(async (i) => idpRoutes(i, idp), { prefix: '/idp' });
  await app.register(v2Api(deps, index), { prefix: '/v2' });
  // API v1 under /v1 (own token answers and error bodies) and the staging store under /s3.
  await registerV1(app, deps);
  return app;
}
