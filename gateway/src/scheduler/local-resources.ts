/**
 * The built-in scheduler's pretend cluster: one node (this machine), its partitions, reservations
 * and accounts, and the scontrol-like rules for changing reservations.
 */
import { freemem, loadavg } from 'node:os';
import type { UnixUser } from '../users';
import type { LocalReservation } from './local-state';
import { SchedulerError, type NodeRecord, type PartitionRecord, type ReservationSpec } from './types';

export interface PartitionConfig {
  name: string;
  isDefault: boolean;
  maxTimeSeconds: number | null;
}

export const DEFAULT_PARTITIONS: PartitionConfig[] = [
  { name: 'debug', isDefault: true, maxTimeSeconds: 3600 },
  { name: 'long', isDefault: false, maxTimeSeconds: 2 * 86400 },
  { name: 'xfer', isDefault: false, maxTimeSeconds: 86400 },
];

/** A maintenance window three days from the first start, four hours long. */
export function defaultReservations(nowSec: number): LocalReservation[] {
  const start = nowSec + 3 * 86400;
  return [{ name: 'maint', startTime: start, endTime: start + 4 * 3600, users: ['root'], accounts: [], flags: ['MAINT'] }];
}

export function accountsFor(user: UnixUser): { name: string; default: boolean }[] {
  const list = [{ name: 'proj', default: true }];
  if (user.name === 'alice') list.push({ name: 'proj2', default: false });
  return list;
}

export function partitionRecords(partitions: PartitionConfig[], cpuCount: number, node: string): PartitionRecord[] {
  return partitions.map((p) => ({
    name: p.name, cpus: cpuCount, totalNodes: 1, state: 'UP', isDefault: p.isDefault, maxTime: p.maxTimeSeconds, nodes: node,
  }));
}

export function nodeRecord(node: string, cpuCount: number, busy: number, reserved: boolean, partitions: PartitionConfig[]): NodeRecord {
  const alloc = Math.min(busy, cpuCount);
  const state = [alloc === 0 ? 'IDLE' : alloc >= cpuCount ? 'ALLOCATED' : 'MIXED'];
  if (reserved) state.push('RESERVED');
  return {
    name: node,
    cpus: cpuCount,
    state,
    sockets: 1,
    cores: cpuCount,
    threads: 1,
    cpuLoad: Math.round(loadavg()[0] * 100) / 100,
    freeMemory: Math.floor(freemem() / 1048576),
    features: [...NODE_FEATURES],
    address: '127.0.0.1',
    hostname: node,
    partitions: partitions.map((p) => p.name),
    weight: 1,
    allocMemory: 0,
    allocCpus: alloc,
    idleCpus: cpuCount - alloc,
  };
}

const NAME = /^[A-Za-z0-9_.-]+$/;

/** The built-in node's one feature (`f7t`, as the Slurm node of `scripts/slurm` and upstream's test cluster have). */
export const NODE_FEATURES: readonly string[] = ['f7t'];

function checkTimes(verb: string, start: number, end: number): void {
  if (!Number.isFinite(start) || !Number.isFinite(end)) throw new SchedulerError(`Error ${verb} the reservation: Invalid time specification`, 400);
  if (end <= start) throw new SchedulerError(`Error ${verb} the reservation: Reservation end time must be after its start time`, 400);
}

function checkNodes(verb: string, spec: ReservationSpec): void {
  // A feature the built-in node lacks is unknown (scontrol's wording).
  if (spec.nodeType && !NODE_FEATURES.includes(spec.nodeType)) throw new SchedulerError(`Error ${verb} the reservation: Invalid feature specification`, 400);
  if (spec.numberOfNodes !== undefined && (spec.numberOfNodes < 1 || spec.numberOfNodes > 1)) {
    throw new SchedulerError(`Error ${verb} the reservation: Requested node configuration is not available`, 400);
  }
}

/** A new list with the reservation added; SchedulerError 400 with an scontrol-like text otherwise. */
export function createReservation(list: LocalReservation[], spec: ReservationSpec): LocalReservation[] {
  if (!spec.name || !NAME.test(spec.name)) throw new SchedulerError('Error creating the reservation: Invalid reservation name', 400);
  if (list.some((r) => r.name === spec.name)) throw new SchedulerError('Error creating the reservation: Duplicate reservation name', 400);
  checkTimes('creating', spec.startTime, spec.endTime);
  checkNodes('creating', spec);
  const r: LocalReservation = {
    name: spec.name,
    startTime: Math.floor(spec.startTime),
    endTime: Math.floor(spec.endTime),
    users: spec.users ?? [],
    accounts: spec.account ? [spec.account] : [],
    flags: spec.flags ?? [],
  };
  return [...list, r];
}

export function updateReservation(list: LocalReservation[], spec: ReservationSpec): LocalReservation[] {
  const old = list.find((r) => r.name === spec.name);
  if (!old) throw new SchedulerError('Error updating the reservation: Requested reservation is invalid', 400);
  checkTimes('updating', spec.startTime, spec.endTime);
  checkNodes('updating', spec);
  const next: LocalReservation = {
    ...old,
    startTime: Math.floor(spec.startTime),
    endTime: Math.floor(spec.endTime),
    users: spec.users ?? old.users,
    accounts: spec.account ? [spec.account] : old.accounts,
    flags: spec.flags ?? old.flags,
  };
  return list.map((r) => (r === old ? next : r));
}

export function deleteReservation(list: LocalReservation[], name: string): LocalReservation[] {
  if (!list.some((r) => r.name === name)) throw new SchedulerError('Error deleting the reservation: Requested reservation is invalid', 400);
  return list.filter((r) => r.name !== name);
}
