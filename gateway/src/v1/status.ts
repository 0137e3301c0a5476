/** v1 status service (§2.3): services, systems, filesystems, parameters. No machine header. */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { SystemRuntime } from '../v2/context';
import { STORAGE_MAX_FILE_MB, TEMPURL_EXP_SECONDS, type V1Deps } from './context';
import { V1Error } from './errors';
import { upstream } from '../compat';

/** The v1 release this gateway speaks (top of the reference server's CHANGELOG). */
export const FIRECREST_VERSION = 'v1.16.6';
const BUILD = new Date().toISOString().replace(/\.\d+Z$/, 'Z');

const SERVICES = ['certificator', 'utilities', 'compute', 'tasks', 'storage', 'reservations'];

function service(name: string): Record<string, unknown> {
  return { service: name, status: 'available', status_code: 200, description: 'server up & flask running' };
}

function system(s: SystemRuntime): Record<string, string> {
  const missing = s.fileSystems.filter((f) => !existsSync(f.path)).map((f) => f.path);
  if (missing.length > 0) return { system: s.name, status: 'not available', description: `Filesystem ${missing.join(', ')} is not available` };
  return { system: s.name, status: 'available', description: 'System ready' };
}

function fileSystems(s: SystemRuntime): Record<string, unknown>[] {
  return s.fileSystems.map((f) => {
    const ok = existsSync(f.path);
    const name = (f.path.split('/').filter(Boolean).pop() ?? f.dataType).toUpperCase();
    return { name, path: f.path, description: `${f.dataType} file system`, status_code: ok ? 200 : 400, status: ok ? 'available' : 'not available' };
  });
}

const entry = (name: string, value: unknown, unit: string, description: string): Record<string, unknown> => ({ name, value, unit, description });

export async function statusRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  app.get('/services', async () => ({ description: 'List of services with status and description.', out: SERVICES.map(service) }));

  app.get<{ Params: { name: string } }>('/services/:name', async (req) => {
    if (!SERVICES.includes(req.params.name)) throw new V1Error(404, { description: 'Service does not exists', status_code: 404 });
    return service(req.params.name);
  });

  app.get('/systems', async () => ({ description: 'List of systems with status and description.', out: [...deps.systems.values()].map(system) }));

  app.get<{ Params: { name: string } }>('/systems/:name', async (req) => {
    const s = deps.systems.get(req.params.name);
    if (!s) throw new V1Error(404, { description: 'System does not exists.' });
    return { description: 'System information', out: system(s) };
  });

  app.get('/filesystems', async () => {
    const out: Record<string, unknown> = {};
    for (const s of deps.systems.values()) out[s.name] = fileSystems(s);
    return { description: 'Filesystem information', out };
  });

  app.get<{ Params: { name: string } }>('/filesystems/:name', async (req, reply) => {
    const s = deps.systems.get(req.params.name);
    if (!s) return reply.code(404).send({ description: `Filesystem information for system ${req.params.name}`, out: `Machine ${req.params.name} does not exist` });
    return { description: `Filesystem information for system ${s.name}`, out: fileSystems(s) };
  });

  app.get('/parameters', async (req) => {
    const { settings } = deps;
    const mb = (bytes: number): string => String(Math.round((bytes / 1048576) * 1000) / 1000);
    return {
      description: "Firecrest's parameters",
      out: {
        general: [
          // A server deployed without F7T_GENERAL_INFORMATION reports no version.
          ...(upstream(req) ? [] : [entry('FIRECREST_VERSION', FIRECREST_VERSION, '', 'FirecREST version.')]),
          entry('FIRECREST_BUILD', BUILD, '', 'FirecREST build timestamp.'),
        ],
        compute: [entry('WORKLOAD_MANAGER', 'Slurm', '', 'Type of workload manager of the systems.')],
        utilities: [
          entry('UTILITIES_MAX_FILE_SIZE', mb(settings.maxOpsFileSize), 'MB', 'The maximum allowable file size for various operations of the utilities microservice.'),
          entry('UTILITIES_TIMEOUT', String(settings.commandTimeoutSeconds), 'seconds', 'Maximum time duration for executing the commands in the cluster for the utilities microservice.'),
        ],
        storage: [
          entry('OBJECT_STORAGE', 's3v4', '', 'Type of object storage, like `swift`, `s3v2` or `s3v4`.'),
          entry('STORAGE_TEMPURL_EXP_TIME', String(TEMPURL_EXP_SECONDS), 'seconds', 'Expiration time for temp URLs.'),
          entry('STORAGE_MAX_FILE_SIZE', String(STORAGE_MAX_FILE_MB), 'MB', 'Maximum file size for temp URLs.'),
          entry('FILESYSTEMS', [...deps.systems.values()].map((s) => ({ system: s.name, mounted: s.fileSystems.map((f) => f.path) })), '', 'Available filesystems through the API.'),
        ],
      },
    };
  });
}
