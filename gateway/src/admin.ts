/**
 * The gateway-only admin API under `/_admin` (bearer = the admin token of the JSON line): fault
 * switches, run-time settings, a scheduler outage, early token expiry and request statistics. Never subject to faults or path lower-casing.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TokenService } from './auth';
import type { Faults } from './faults';
import type { HealthChecker } from './http/health';
import type { SchedulerOutage } from './scheduler/outage';
import type { Stats } from './http/stats';
import type { IdpStore } from './idp/adapter';
import type { IdpRuntime } from './idp/token-hooks';
import type { GatewaySettings } from './v2/context';

export interface AdminDeps {
  adminToken: string;
  faults: Faults;
  stats: Stats;
  runtime: { tokenLifetimeSeconds: number };
  tokens: Pick<TokenService, 'expireIssued'>;
  v2: { settings: GatewaySettings; systems: Map<string, unknown> };
  outage: SchedulerOutage;
  health: Pick<HealthChecker, 'refresh' | 'get'>;
  /** The identity provider's store, when it runs. */
  idpStore?: Pick<IdpStore, 'revokeAccount'>;
  /** The identity provider's run-time switches (device polling pace, ID token fault). */
  idpRuntime?: IdpRuntime;
}

const SETTINGS = ['tokenLifetimeSeconds', 'maxOpsFileSize', 'commandTimeoutSeconds', 'maxPartSize', 'stagingTtlSeconds', 'maxExtractBytes', 'maxStagingBytesPerUser', 'accountingLagSeconds'] as const;

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function adminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const { faults, stats, runtime } = deps;
  const settings = deps.v2.settings;
  const current = (): Record<string, number> => ({
    tokenLifetimeSeconds: runtime.tokenLifetimeSeconds,
    maxOpsFileSize: settings.maxOpsFileSize,
    commandTimeoutSeconds: settings.commandTimeoutSeconds,
    maxPartSize: settings.maxPartSize,
    stagingTtlSeconds: settings.stagingTtlSeconds,
    maxExtractBytes: settings.maxExtractBytes,
    maxStagingBytesPerUser: settings.maxStagingBytesPerUser,
    accountingLagSeconds: settings.accountingLagSeconds,
  });

  app.addHook('onRequest', async (req, reply) => {
    const header = req.headers.authorization ?? '';
    const token = header.replace(/^bearer\s+/i, '');
    if (token === header || !sameToken(token, deps.adminToken)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ error: 'admin token required' });
    }
    return undefined;
  });

  app.get('/faults', async () => faults.get());
  app.put('/faults', async (req, reply) => {
    try {
      faults.set(req.body ?? {});
      return faults.get();
    } catch (e) {
      return reply.code(400).send({ error: e instanceof Error ? e.message : String(e) });
    }
  });
  app.delete('/faults', async (_req, reply) => {
    faults.set({});
    return reply.code(204).send();
  });

  // Ends a person's sessions at the identity provider (an admin's "sign out everywhere", a
  // disabled account): their refresh tokens stop working; access tokens run out on their own.
  app.post('/idp/revoke', async (req, reply) => {
    const login = (req.body as { login?: unknown } | undefined)?.login;
    if (!deps.idpStore) return reply.code(404).send({ error: 'the identity provider is off' });
    if (typeof login !== 'string' || login === '') return reply.code(400).send({ error: 'login (string) required' });
    return { login, grantsRevoked: deps.idpStore.revokeAccount(login) };
  });

  app.get('/idp', async (_req, reply) => deps.idpRuntime ?? reply.code(404).send({ error: 'the identity provider is off' }));
  app.put('/idp', async (req, reply) => {
    const r = deps.idpRuntime;
    if (!r) return reply.code(404).send({ error: 'the identity provider is off' });
    const b = (req.body ?? {}) as Partial<Record<keyof IdpRuntime, unknown>>;
    const seconds = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 3600;
    if (b.deviceInterval !== undefined && !seconds(b.deviceInterval)) return reply.code(400).send({ error: 'deviceInterval: seconds 0..3600' });
    if (b.deviceMinInterval !== undefined && !seconds(b.deviceMinInterval)) return reply.code(400).send({ error: 'deviceMinInterval: seconds 0..3600' });
    if (b.idTokenFault !== undefined && b.idTokenFault !== null && b.idTokenFault !== 'nonce' && b.idTokenFault !== 'foreignKey') return reply.code(400).send({ error: 'idTokenFault: "nonce", "foreignKey" or null' });
    if (b.deviceInterval !== undefined) r.deviceInterval = b.deviceInterval;
    if (b.deviceMinInterval !== undefined) r.deviceMinInterval = b.deviceMinInterval;
    if (b.idTokenFault !== undefined) r.idTokenFault = (b.idTokenFault ?? undefined);
    return r;
  });

  app.get('/compat', async () => ({ mode: settings.compat, ingressPollSeconds: settings.ingressPollSeconds, idleCloseSeconds: settings.idleCloseSeconds }));
  // The upstream servers' behaviour (compat.ts) on or off at run time, for the suites that test it.
  app.put('/compat', async (req, reply) => {
    const body = (req.body ?? {}) as { mode?: unknown; ingressPollSeconds?: unknown; idleCloseSeconds?: unknown };
    if (body.mode !== 'none' && body.mode !== 'upstream') return reply.code(400).send({ error: 'mode must be "none" or "upstream"' });
    const poll = body.ingressPollSeconds;
    if (poll !== undefined && (typeof poll !== 'number' || !Number.isInteger(poll) || poll < 1)) return reply.code(400).send({ error: 'ingressPollSeconds must be a positive integer' });
    const idle = body.idleCloseSeconds;
    if (idle !== undefined && (typeof idle !== 'number' || !(idle > 0))) return reply.code(400).send({ error: 'idleCloseSeconds must be a positive number' });
    settings.compat = body.mode;
    settings.ingressPollSeconds = typeof poll === 'number' ? poll : body.mode === 'upstream' ? 60 : 1;
    settings.idleCloseSeconds = typeof idle === 'number' ? idle : 5;
    return { mode: settings.compat, ingressPollSeconds: settings.ingressPollSeconds, idleCloseSeconds: settings.idleCloseSeconds };
  });

  // The staged transfer method the site advertises (a site configured for streamer or wormhole).
  app.put('/transfer-method', async (req, reply) => {
    const method = (req.body as { method?: unknown } | undefined)?.method;
    if (method !== 's3' && method !== 'streamer' && method !== 'wormhole') return reply.code(400).send({ error: 'method must be "s3", "streamer" or "wormhole"' });
    settings.transferMethod = method;
    return { method };
  });

  app.get('/settings', async () => current());
  app.put('/settings', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(body)) {
      if (!(SETTINGS as readonly string[]).includes(k)) return reply.code(400).send({ error: `unknown setting "${k}" (known: ${SETTINGS.join(', ')})` });
      const min = k === 'accountingLagSeconds' ? 0 : 1;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min) return reply.code(400).send({ error: `${k} must be an integer of at least ${min}` });
    }
    const n = body as Partial<Record<(typeof SETTINGS)[number], number>>;
    if (n.tokenLifetimeSeconds !== undefined) runtime.tokenLifetimeSeconds = n.tokenLifetimeSeconds;
    if (n.maxOpsFileSize !== undefined) settings.maxOpsFileSize = n.maxOpsFileSize;
    if (n.commandTimeoutSeconds !== undefined) settings.commandTimeoutSeconds = n.commandTimeoutSeconds;
    if (n.maxPartSize !== undefined) settings.maxPartSize = n.maxPartSize;
    if (n.stagingTtlSeconds !== undefined) settings.stagingTtlSeconds = n.stagingTtlSeconds;
    if (n.maxExtractBytes !== undefined) settings.maxExtractBytes = n.maxExtractBytes;
    if (n.maxStagingBytesPerUser !== undefined) settings.maxStagingBytesPerUser = n.maxStagingBytesPerUser;
    if (n.accountingLagSeconds !== undefined) settings.accountingLagSeconds = n.accountingLagSeconds;
    return current();
  });

  // A scheduler outage (slurmctld unreachable) without touching the machine's scheduler; the
  // health is probed again before answering, so the 503s start with the answer.
  const schedulerState = async (): Promise<Record<string, unknown>> => {
    const systems: Record<string, unknown> = {};
    for (const name of deps.v2.systems.keys()) systems[name] = (await deps.health.get(name)).servicesHealth?.find((h) => h.serviceType === 'scheduler') ?? null;
    return { down: deps.outage.down, systems };
  };
  app.get('/scheduler', async () => schedulerState());
  app.put('/scheduler', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.down !== 'boolean' || Object.keys(body).length !== 1) return reply.code(400).send({ error: 'body must be {"down": true|false}' });
    deps.outage.down = body.down;
    await deps.health.refresh();
    return schedulerState();
  });

  // Tokens issued so far are refused as expired from now on (token expiry mid-operation, on demand).
  app.post('/tokens/expire', async () => ({ expired: deps.tokens.expireIssued() }));

  app.get('/stats', async () => stats.snapshot());
  app.post('/stats/reset', async (_req, reply) => {
    stats.reset();
    return reply.code(204).send();
  });
}
