/**
 * What a v2 route module receives. The server (server.ts) authenticates every request, resolves
 * `{system}` and sets `request.f7tUser`; route modules only do their own work and throw ApiError.
 */
import type { FastifyRequest } from 'fastify';
import type { UnixUser } from '../users';
import type { GatewaySettings, SystemRuntime } from '../runtime';

export type { CompatMode, FileSystemConfig, GatewaySettings, SystemRuntime } from '../runtime';

export interface V2Deps {
  settings: GatewaySettings;
  /** Lower-cased system name -> runtime. */
  systems: Map<string, SystemRuntime>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The unix user the bearer token maps to (set by the auth hook). */
    f7tUser?: UnixUser;
    /** The system named in the path (set by the system hook on `/{group}/{system}/...` routes). */
    f7tSystem?: SystemRuntime;
  }
}

/** Submits a transfer job for a request: its name, its script (given the directives) and account. */
export type SubmitTransferJob = (req: FastifyRequest, name: string, script: (directives: string[]) => string, account: string | undefined) => Promise<{ transferJob: unknown }>;

/** The authenticated user and the system of a request; the hooks guarantee both on system routes. */
export function ctx(req: FastifyRequest): { user: UnixUser; system: SystemRuntime } {
  if (!req.f7tUser || !req.f7tSystem) throw new Error('route used without auth/system hooks');
  return { user: req.f7tUser, system: req.f7tSystem };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route answers without a bearer token (only `GET /status/liveness/`). */
    public?: boolean;
  }
}
