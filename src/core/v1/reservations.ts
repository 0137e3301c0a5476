/**
 * v1 reservations service (§2.8, deprecated `rsvmgmt` wrapper): list with flags, create, update,
 * delete. Inputs are checked here with the server's own rules so a mistake reads as InvalidInputError
 * before any round trip.
 */
import type { CallOptions, V1ReservationRequest } from '../api';
import { InvalidInputError } from '../errors';
import type { Reservation } from '../model';
import { reservation } from './translate';
import type { V1Http } from './v1Http';
import { StrRecord } from './wire';
import { z } from 'zod';

const NAME = /^[a-z_$][-a-z_$0-9]*$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;
const ListW = z.object({ success: z.array(StrRecord) });

function check(r: V1ReservationRequest, names: Record<string, string | undefined>): void {
  if (!r.nodeType) throw new InvalidInputError(`'nodeType' is required by API v1 reservations: the node feature to reserve (the Nodes view lists each node's features)`);
  for (const [k, v] of Object.entries(names)) if (v !== undefined && !NAME.test(v)) throw new InvalidInputError(`'${k}' must match ${NAME.source}: '${v}'`);
  if (!Number.isInteger(r.numberOfNodes) || r.numberOfNodes < 1) throw new InvalidInputError(`'numberOfNodes' must be an integer of at least 1`);
  if (!TIME.test(r.starttime) || !TIME.test(r.endtime)) throw new InvalidInputError(`'starttime' and 'endtime' must be YYYY-MM-DDTHH:MM:SS`);
  if (r.endtime <= r.starttime) throw new InvalidInputError(`'endtime' must be after 'starttime'`);
}

function fields(r: V1ReservationRequest): Record<string, string | undefined> {
  return { numberOfNodes: String(r.numberOfNodes), nodeType: r.nodeType, starttime: r.starttime, endtime: r.endtime };
}

/** Reservation management of one connection. */
export class ReservationRoutes {
  constructor(private readonly v1: V1Http) {}

  async list(machine: string, o?: CallOptions): Promise<Reservation[]> {
    return (await this.v1.json(ListW, 'GET', '/reservations', { machine, expect: [200], call: o })).success.map(reservation);
  }

  async create(machine: string, name: string, account: string, r: V1ReservationRequest, o?: CallOptions): Promise<void> {
    check(r, { reservation: name, account, nodeType: r.nodeType });
    await this.v1.send('POST', '/reservations', { machine, fields: { reservation: name, account, ...fields(r) }, expect: [201], call: o });
  }

  async update(machine: string, name: string, r: V1ReservationRequest, o?: CallOptions): Promise<void> {
    check(r, { reservation: name, nodeType: r.nodeType });
    await this.v1.send('PUT', '/reservations/{name}', { machine, params: { name }, fields: fields(r), expect: [200], call: o });
  }

  async remove(machine: string, name: string, o?: CallOptions): Promise<void> {
    await this.v1.send('DELETE', '/reservations/{name}', { machine, params: { name }, expect: [204], call: o });
  }
}
