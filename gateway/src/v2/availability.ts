/**
 * The real server's service-availability check for the scheduler (§3.1, 503): with probing
 * configured (always, here), a route that needs the scheduler is refused while the last health
 * probe found it unhealthy, before any scheduler command runs. Status routes do not use it: they
 * try the scheduler regardless (and fail with their wrapped 500).
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import type { HealthChecker } from '../http/health';

export function requireHealthyScheduler(health: Pick<HealthChecker, 'unhealthy'>): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    const system = req.f7tSystem;
    if (system && health.unhealthy(system.name, 'scheduler')) {
      throw new ApiError(503, `The scheduler service for the requested system (${system.name}) is unhealthy.`);
    }
  };
}
