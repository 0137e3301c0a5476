/** v2 status routes (§3.2): systems, liveness, nodes, partitions, reservations, userinfo. */
import type { FastifyInstance } from 'fastify';
import type { HealthChecker } from '../http/health';
import { PROBE_TIMEOUT } from '../http/health';
import { ApiError } from '../http/errors';
import { queryBool } from '../http/query';
import { SchedulerError } from '../scheduler/types';
import { ctx, type SystemRuntime, type V2Deps } from './context';
import { upstream } from '../compat';

export interface StatusDeps extends V2Deps {
  health: HealthChecker;
}

/** The real status sub-routes wrap every failure as a 500 whose message starts with the inner status. */
async function wrapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ApiError || e instanceof SchedulerError) throw new ApiError(500, `${e.status}: ${e.message}`);
    throw new ApiError(500, e instanceof Error ? e.message : String(e));
  }
}

async function systemObject(system: SystemRuntime, deps: StatusDeps): Promise<Record<string, unknown>> {
  const { settings } = deps;
  const health = await deps.health.get(system.name);
  return {
    name: system.name,
    ssh: {
      host: '127.0.0.1',
      port: 22,
      proxyHost: null,
      proxyPort: null,
      maxClients: 100,
      timeout: { connection: 5, login: 5, commandExecution: settings.commandTimeoutSeconds, idleTimeout: 60, keepAlive: 5 },
    },
    scheduler: { type: 'slurm', connectionMode: 'ssh', version: health.schedulerVersion, apiUrl: null, apiVersion: null, timeout: 10 },
    servicesHealth: health.servicesHealth,
    probing: {
      services: { ssh: { timeout: PROBE_TIMEOUT }, scheduler: { timeout: PROBE_TIMEOUT }, filesystem: { timeout: PROBE_TIMEOUT } },
      intervalCheck: deps.health.intervalSeconds,
    },
    lastHealthCheck: health.lastHealthCheck,
    fileSystems: system.fileSystems.map((f) => ({ path: f.path, dataType: f.dataType, defaultWorkDir: f.defaultWorkDir })),
    dataOperation: {
      datatransfer_jobs_directives: system.transferDirectives,
      max_ops_file_size: settings.maxOpsFileSize,
      data_transfer: {
        serviceType: settings.transferMethod,
        name: settings.transferMethod,
        privateUrl: '**********',
        publicUrl: `${settings.origin}/s3`,
        accessKeyId: '**********',
        secretAccessKey: '**********',
        region: 'us-east-1',
        ttl: settings.stagingTtlSeconds,
        tenant: null,
        multipart: { use_split: false, max_part_size: settings.maxPartSize, parallel_runs: 3, tmp_folder: 'tmp' },
        bucketLifecycleConfiguration: { days: 10 },
      },
    },
  };
}

export async function statusRoutes(app: FastifyInstance, deps: StatusDeps): Promise<void> {
  app.get('/systems', async () => ({
    systems: await Promise.all([...deps.systems.values()].map((s) => systemObject(s, deps))),
  }));

  app.get('/liveness/', { config: { public: true } }, async () => deps.health.liveness());

  app.get('/:system/nodes', async (req) => {
    const { user, system } = ctx(req);
    const nodes = await wrapped(async () => {
      const list = await system.scheduler.nodes(user);
      if (list.length === 0) throw new ApiError(404, 'No nodes found');
      return list;
    });
    return { nodes };
  });

  app.get('/:system/partitions', async (req) => {
    const { user, system } = ctx(req);
    // Accepted for compatibility; the scheduler interface has no hidden partitions to reveal.
    queryBool(req, 'show_hidden', false);
    const parts = await wrapped(() => system.scheduler.partitions(user));
    // Upstream carries name, CPUs, node count and state only.
    if (upstream(req)) return { partitions: parts.map((p) => ({ name: p.name, cpus: p.cpus, totalNodes: p.totalNodes, partition: p.state })) };
    return {
      partitions: parts.map((p) => ({
        name: p.name,
        cpus: p.cpus,
        totalNodes: p.totalNodes,
        partition: p.state,
        // Gateway extensions (not on the real server): used by the job submission form.
        isDefault: p.isDefault,
        maxTime: p.maxTime,
      })),
    };
  });

  app.get('/:system/reservations', async (req) => {
    const { user, system } = ctx(req);
    const list = await wrapped(() => system.scheduler.reservations(user));
    return {
      reservations: list.map((r) => ({ name: r.name, nodeList: r.nodeList, startTime: r.startTime, endTime: r.endTime, features: r.features, state: r.state })),
    };
  });

  app.get('/:system/userinfo', async (req) => {
    const { user, system } = ctx(req);
    let accounts: { name: string; default: boolean }[] | null;
    try {
      accounts = await system.scheduler.accounts(user);
    } catch {
      accounts = null;
    }
    return {
      user: { id: String(user.uid), name: user.name },
      group: { id: String(user.gid), name: user.group },
      groups: user.groups.map((g) => ({ id: String(g.gid), name: g.name })),
      accounts,
    };
  });
}
