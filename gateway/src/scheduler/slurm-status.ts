/**
 * Partitions, nodes and reservations from `scontrol show ... -o` (one `key=value` line per
 * object), shaped as the v2 status records.
 */
import type { NodeRecord, PartitionRecord, ReservationRecord } from './types';
import { durationSeconds, intOrNull, nullish, parseKeyValueLines } from './slurm-run';

/** scontrol/sinfo node state words -> the normalised v2 node states. */
const NODE_STATES: Record<string, string> = {
  idle: 'IDLE', allocated: 'ALLOCATED', alloc: 'ALLOCATED', mixed: 'MIXED', mix: 'MIXED',
  down: 'DOWN', fail: 'DOWN', failing: 'DOWN', failg: 'DOWN',
  drain: 'DRAIN', drained: 'DRAIN', draining: 'DRAIN', drng: 'DRAIN', drl: 'DRAIN',
  completing: 'COMPLETING', comp: 'COMPLETING', maint: 'OFFLINE', reserved: 'RESERVED', resv: 'RESERVED',
  power_down: 'POWERING_DOWN', powering_down: 'POWERING_DOWN', pow_dn: 'POWERING_DOWN',
  power_up: 'POWERING_UP', powering_up: 'POWERING_UP', pow_up: 'POWERING_UP',
  busy: 'BUSY', not_responding: 'DOWN',
};

/** `MIXED+DRAIN`, `DOWN*`, `idle~` -> `['MIXED', 'DRAIN']`, ... (unknown words become UNKNOWN). */
export function normaliseNodeState(raw: string): string[] {
  const out: string[] = [];
  for (const word of raw.split('+')) {
    const key = word.replace(/[*~#%$@!^-]+$/, '').toLowerCase();
    if (!key) continue;
    const s = NODE_STATES[key] ?? 'UNKNOWN';
    if (!out.includes(s)) out.push(s);
  }
  return out.length ? out : ['UNKNOWN'];
}

function list(v: string | undefined, sep = ','): string[] {
  const s = nullish(v);
  return s === null ? [] : s.split(sep).map((x) => x.trim()).filter(Boolean);
}

/** `scontrol show partition -o` */
export function parsePartitions(text: string): PartitionRecord[] {
  return parseKeyValueLines(text).filter((m) => m.has('PartitionName')).map((m) => ({
    name: m.get('PartitionName')!,
    cpus: intOrNull(m.get('TotalCPUs')),
    totalNodes: intOrNull(m.get('TotalNodes')),
    state: (m.get('State') ?? 'UNKNOWN').toUpperCase(),
    isDefault: m.get('Default') === 'YES',
    maxTime: durationSeconds(m.get('MaxTime')),
    nodes: nullish(m.get('Nodes')) ?? '',
  }));
}

/** `scontrol show node -o` */
export function parseNodes(text: string): NodeRecord[] {
  return parseKeyValueLines(text).filter((m) => m.has('NodeName')).map((m) => {
    const cpus = intOrNull(m.get('CPUTot')) ?? 0;
    const alloc = intOrNull(m.get('CPUAlloc'));
    const load = Number(m.get('CPULoad'));
    const sockets = intOrNull(m.get('Sockets'));
    const coresPerSocket = intOrNull(m.get('CoresPerSocket'));
    return {
      name: m.get('NodeName')!,
      cpus,
      state: normaliseNodeState(m.get('State') ?? ''),
      sockets,
      cores: sockets !== null && coresPerSocket !== null ? sockets * coresPerSocket : coresPerSocket,
      threads: intOrNull(m.get('ThreadsPerCore')),
      cpuLoad: Number.isFinite(load) ? load : null,
      freeMemory: intOrNull(m.get('FreeMem')),
      features: nullish(m.get('ActiveFeatures')) === null ? null : list(m.get('ActiveFeatures')),
      address: nullish(m.get('NodeAddr')),
      hostname: nullish(m.get('NodeHostName')),
      partitions: list(m.get('Partitions')),
      weight: intOrNull(m.get('Weight')),
      allocMemory: intOrNull(m.get('AllocMem')),
      allocCpus: alloc,
      idleCpus: alloc === null ? null : Math.max(0, cpus - alloc),
    };
  });
}

/** `scontrol show reservation -o` with `SLURM_TIME_FORMAT=%s` (times are epoch seconds). */
export function parseReservations(text: string, now = Math.floor(Date.now() / 1000)): ReservationRecord[] {
  return parseKeyValueLines(text).filter((m) => m.has('ReservationName')).map((m) => {
    const startTime = intOrNull(m.get('StartTime')) ?? 0;
    const endTime = intOrNull(m.get('EndTime')) ?? 0;
    const state = nullish(m.get('State'));
    return {
      name: m.get('ReservationName')!,
      nodeList: nullish(m.get('Nodes')) ?? '',
      startTime,
      endTime,
      features: nullish(m.get('Features')),
      state: state ? state.toLowerCase() : startTime <= now && now < endTime ? 'active' : 'inactive',
      users: list(m.get('Users')),
      accounts: list(m.get('Accounts')),
      flags: list(m.get('Flags')),
    };
  });
}
