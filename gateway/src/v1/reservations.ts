/**
 * v1 reservations service (§2.8, deprecated): list, create, update, delete through the Scheduler's
 * reservation methods, with the `rsvmgmt` wrapper's validation. The reference gateway marks the
 * whole service with `Deprecation`/`Sunset` headers, so every answer here carries them.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SchedulerError, type ReservationRecord, type ReservationSpec } from '../scheduler/types';
import type { SystemRuntime } from '../v2/context';
import { slurmTimestamp } from './compute-shapes';
import { Fields, v1User, type V1Deps } from './context';
import { V1Error } from './errors';
import { upstream } from '../compat';

const NAME = /^[a-z_$][-a-z_$0-9]*$/;
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)$/;

type Verb = 'creating' | 'updating' | 'deleting' | 'listing';

function fail(verb: Verb, description: string, status = 400, headers: Record<string, string> = {}): V1Error {
  return new V1Error(status, { error: `Error ${verb} reservation`, description }, headers);
}

/** The system from `X-Machine-Name` (reservations use the utilities spelling of the header). */
function system(req: FastifyRequest, deps: V1Deps, verb: Verb): SystemRuntime {
  const raw = req.headers['x-machine-name'];
  const name = Array.isArray(raw) ? raw[0] : raw;
  if (!name) throw fail(verb, 'No machine name given');
  const s = deps.systems.get(name.toLowerCase());
  if (!s) throw fail(verb, 'Machine does not exist', 400, { 'X-Machine-Does-Not-Exist': 'Machine does not exist' });
  return s;
}

/** Local `YYYY-MM-DDTHH:MM:SS` -> epoch seconds. */
function parseTime(verb: Verb, field: string, value: string | undefined): number {
  const m = value === undefined ? null : TIME.exec(value);
  const d = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.getMonth() !== Number(m?.[2]) - 1) {
    throw fail(verb, `'${field}' parameter format is not valid. It should be YYYY-MM-DDTHH:MM:SS`);
  }
  return Math.floor(d.getTime() / 1000);
}

function checkName(verb: Verb, field: string, value: string | undefined, required = true): string | undefined {
  if (value === undefined || value === '') {
    if (required) throw fail(verb, `'${field}' parameter not set in request`);
    return undefined;
  }
  if (!NAME.test(value)) throw fail(verb, `'${field}' parameter format is not valid (value entered:'${value}')`);
  return value;
}

/** numberOfNodes, nodeType (optional here: the Slurm node may have no features), start and end. */
function spec(verb: Verb, f: Fields, upstreamMode: boolean, name: string, account?: string): ReservationSpec {
  const nodes = f.raw('numberOfNodes');
  if (nodes === undefined || nodes === '') throw fail(verb, "'numberOfNodes' parameter not set in request");
  if (!/^\d+$/.test(nodes) || Number(nodes) < 1) throw fail(verb, `'numberOfNodes' parameter is not valid. It should be an integer > 0 (value entered:'${nodes}')`);
  // Upstream requires it (a positional argument of its site tool); the built-in one does not.
  if (upstreamMode && !f.raw('nodeType')) throw fail(verb, "'nodeType' form data input missing");
  const nodeType = checkName(verb, 'nodeType', f.raw('nodeType'), false);
  const startTime = parseTime(verb, 'starttime', f.raw('starttime'));
  const endTime = parseTime(verb, 'endtime', f.raw('endtime'));
  if (endTime <= startTime) throw fail(verb, "'endtime' occurs before 'starttime'");
  if (startTime <= Date.now() / 1000) throw fail(verb, "'starttime' is in the past");
  return { name, account, numberOfNodes: Number(nodes), nodeType, startTime, endTime };
}

/** The tool's `key=value` pairs with lower-cased keys (§2.8). */
function shape(r: ReservationRecord): Record<string, string> {
  const secs = r.endTime - r.startTime;
  const d = Math.floor(secs / 86400);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const hms = `${pad(Math.floor((secs % 86400) / 3600))}:${pad(Math.floor((secs % 3600) / 60))}:${pad(secs % 60)}`;
  return {
    reservationname: r.name, starttime: slurmTimestamp(r.startTime), endtime: slurmTimestamp(r.endTime),
    duration: d > 0 ? `${d}-${hms}` : hms, nodes: r.nodeList, nodecnt: '1', corecnt: '', features: r.features ?? '(null)',
    partitionname: '(null)', flags: r.flags.join(','), users: r.users.join(',') || '(null)',
    accounts: r.accounts.join(',') || '(null)', licenses: '(null)', state: r.state.toUpperCase(), burstbuffer: '(null)', watts: 'n/a',
  };
}

/** Scheduler refusals: permission -> 404 + X-Permission-Denied, other -> 400 with the tool text. */
async function tool<T>(verb: Verb, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    const text = e instanceof SchedulerError ? e.message : e instanceof Error ? e.message : String(e);
    if (/permission|not authorized|access denied/i.test(text)) throw fail(verb, text, 404, { 'X-Permission-Denied': 'User does not have permission to manage reservations' });
    throw fail(verb, text);
  }
}

/**
 * Only the reservation's creator (or an admin) changes it; anyone else gets the refusal the
 * reservation tool gives a user without the right, before the scheduler is asked.
 */
async function mayManage(deps: V1Deps, req: FastifyRequest, s: SystemRuntime, verb: Verb, name: string): Promise<void> {
  const user = v1User(req);
  if (deps.reservationOwners.mayManage(user, s.name, name)) return;
  // One that does not exist is the scheduler's to refuse, in its own words.
  const existing = await tool('listing', () => s.scheduler.reservations(user));
  if (!existing.some((r) => r.name === name)) return;
  throw fail(verb, `You are not the owner of reservation '${name}': permission denied`, 404, { 'X-Permission-Denied': 'User does not have permission to manage reservations' });
}

export async function reservationRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('Deprecation', '@1711111630');
    reply.header('Sunset', 'Only suppoerted until v2.0');
    return payload;
  });

  app.get('/status', async () => ({ success: 'ack' }));

  app.get('/', async (req) => {
    const s = system(req, deps, 'listing');
    const list = await tool('listing', () => s.scheduler.reservations(v1User(req)));
    return { success: list.map(shape) };
  });

  app.post('/', async (req, reply) => {
    const f = await Fields.form(req, 'Error creating reservation');
    const s = system(req, deps, 'creating');
    const name = checkName('creating', 'reservation', f.raw('reservation')) ?? '';
    const account = checkName('creating', 'account', f.raw('account'));
    const r = spec('creating', f, upstream(req), name, account);
    // A site's own reservation tool, with its own words (upstream's test cluster).
    if (upstream(req) && r.nodeType !== 'f7t') throw fail('creating', 'only f7t feature type are supported');
    await tool('creating', () => s.scheduler.createReservation(r));
    deps.reservationOwners.created(v1User(req), s.name, name);
    return reply.code(201).send({ success: `Reservation created: ${name}` });
  });

  app.put<{ Params: { name: string } }>('/:name', async (req) => {
    const f = await Fields.form(req, 'Error updating reservation');
    const s = system(req, deps, 'updating');
    const name = checkName('updating', 'reservation', req.params.name) ?? '';
    await mayManage(deps, req, s, 'updating', name);
    await tool('updating', () => s.scheduler.updateReservation(spec('updating', f, upstream(req), name)));
    return { success: `Reservation updated: ${name}` };
  });

  app.delete<{ Params: { name: string } }>('/:name', async (req, reply) => {
    const s = system(req, deps, 'deleting');
    const name = checkName('deleting', 'reservation', req.params.name) ?? '';
    await mayManage(deps, req, s, 'deleting', name);
    await tool('deleting', () => s.scheduler.deleteReservation(name));
    deps.reservationOwners.deleted(s.name, name);
    return reply.code(204).send();
  });
}
