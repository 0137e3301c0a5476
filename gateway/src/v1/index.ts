/**
 * API v1 (§2) and the staging store it hands URLs of: `registerV1` mounts the v1 services under
 * `/v1` (own token answers, own error bodies, machine header per service) and the S3-style staging
 * endpoints under `/s3`. Both share one object store and one URL signer.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../auth';
import type { UserTable } from '../setup';
import { stagingRoutes } from '../staging/routes';
import { Signer } from '../staging/signer';
import { ObjectStore } from '../staging/store';
import type { V2Deps } from '../v2/context';
import { v1Authenticate } from './auth';
import { computeRoutes } from './compute';
import type { V1Deps } from './context';
import { v1ErrorHandler } from './errors';
import { reservationRoutes } from './reservations';
import { statusRoutes } from './status';
import { storageExternalRoutes } from './storage-external';
import { storageInternalRoutes } from './storage-internal';
import { taskRoutes } from './task-routes';
import { TaskStore } from './tasks';
import { utilitiesReadRoutes } from './utilities-read';
import { utilitiesRoutes } from './utilities';
import { ReservationOwners } from './reservation-owners';

export interface V1ServerDeps {
  v2: V2Deps;
  tokens: TokenService;
  users: UserTable;
}

export async function registerV1(app: FastifyInstance, server: V1ServerDeps): Promise<void> {
  const root = join(server.v2.settings.stateDir, 'staging');
  const deps: V1Deps = {
    settings: server.v2.settings,
    systems: server.v2.systems,
    tasks: new TaskStore(),
    store: new ObjectStore(root),
    signer: Signer.load(root),
    jobFiles: new Map(),
    reservationOwners: new ReservationOwners(server.v2.settings.stateDir, server.v2.settings.reservationAdmins),
  };

  await app.register(async (api) => {
    api.setErrorHandler(v1ErrorHandler);
    // What the reference gateway (Kong) answers for a path or method it does not route.
    api.setNotFoundHandler((_req, reply) => reply.code(404).send({ message: 'no Route matched with those values' }));
    api.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?')[0].replace(/\/+$/, '');
      if (path === '/v1' || path === '/v1/tasks/tasklist') return reply.code(400).type('text/plain').send('Invalid');
      if (req.is404) return undefined;
      req.f7tUser = await v1Authenticate(req, server.tokens, server.users);
      return undefined;
    });
    // The server-wide hook adds the v2 server's F7T-* headers; v1 services never send them (and
    // clients use them to tell the API versions apart).
    api.addHook('onSend', async (_req, reply, payload) => {
      reply.removeHeader('F7T-AppVersion');
      reply.removeHeader('F7T-Timestamp');
      return payload;
    });
    await api.register(async (i) => statusRoutes(i, deps), { prefix: '/status' });
    await api.register(async (i) => { await utilitiesRoutes(i, deps); await utilitiesReadRoutes(i, deps); }, { prefix: '/utilities' });
    await api.register(async (i) => computeRoutes(i, deps), { prefix: '/compute' });
    await api.register(async (i) => storageInternalRoutes(i, deps), { prefix: '/storage/xfer-internal' });
    await api.register(async (i) => storageExternalRoutes(i, deps), { prefix: '/storage/xfer-external' });
    await api.register(async (i) => taskRoutes(i, deps), { prefix: '/tasks' });
    await api.register(async (i) => reservationRoutes(i, deps), { prefix: '/reservations' });
  }, { prefix: '/v1' });

  await app.register(async (s3) => stagingRoutes(s3, { store: deps.store, signer: deps.signer, quotaBytes: () => deps.settings.maxStagingBytesPerUser }), { prefix: '/s3' });
}
