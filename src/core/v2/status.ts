/** v2 status routes (§3.2): systems, partitions, nodes, reservations, userinfo, server version. */
import type { CallOptions } from '../api';
import type { ComputeNode, Partition, Reservation, System, UserInfo } from '../model';
import type { ApiHttp } from '../http/apiHttp';
import { parseBody } from './parse';
import { toPartition, toSystem } from './translate';
import { NodesW, PartitionsW, ReservationsW, SystemsW, UserInfoW } from './wire';

function list(v: string | string[] | null | undefined): string[] {
  if (v === null || v === undefined) return [];
  return (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** The status router of one connection. */
export class StatusRoutes {
  constructor(private readonly http: ApiHttp) {}

  /** `F7T-AppVersion`; the `2.x.x` placeholder of non-release builds becomes `2`. */
  async serverVersion(call?: CallOptions): Promise<string | undefined> {
    const res = await this.http.request({ method: 'GET', route: '/status/systems', expect: [200], call });
    const v = res.headers['f7t-appversion'];
    const version = Array.isArray(v) ? v[0] : v;
    if (!version) return undefined;
    return version === '2.x.x' ? '2' : version;
  }

  async systems(call?: CallOptions): Promise<System[]> {
    const res = await this.http.request({ method: 'GET', route: '/status/systems', expect: [200], call });
    return parseBody(SystemsW, res, 'GET /status/systems').systems.map(toSystem);
  }

  async partitions(system: string, call?: CallOptions): Promise<Partition[]> {
    const route = '/status/{system}/partitions';
    const res = await this.http.request({ method: 'GET', route, params: { system }, expect: [200], call });
    return (parseBody(PartitionsW, res, `GET ${route}`).partitions ?? []).map(toPartition);
  }

  async nodes(system: string, call?: CallOptions): Promise<ComputeNode[]> {
    const route = '/status/{system}/nodes';
    const res = await this.http.request({ method: 'GET', route, params: { system }, expect: [200], call });
    return (parseBody(NodesW, res, `GET ${route}`).nodes ?? []).map((n) => ({
      name: n.name,
      states: list(n.state).map((s) => s.toUpperCase()),
      cpus: n.cpus ?? 0,
      partitions: n.partitions ?? [],
      allocCpus: n.allocCpus ?? undefined,
      idleCpus: n.idleCpus ?? undefined,
      cpuLoad: n.cpuLoad ?? undefined,
      freeMemory: n.freeMemory ?? undefined,
      features: n.features === null || n.features === undefined ? undefined : list(n.features),
    }));
  }

  async reservations(system: string, call?: CallOptions): Promise<Reservation[]> {
    const route = '/status/{system}/reservations';
    const res = await this.http.request({ method: 'GET', route, params: { system }, expect: [200], call });
    const now = Date.now() / 1000;
    return (parseBody(ReservationsW, res, `GET ${route}`).reservations ?? []).map((r) => ({
      name: r.name,
      state: (r.state ?? (now >= r.startTime && now < r.endTime ? 'active' : 'inactive')).toLowerCase(),
      start: new Date(r.startTime * 1000),
      end: new Date(r.endTime * 1000),
      nodeList: r.nodeList ?? '',
      features: r.features ?? undefined,
    }));
  }

  async userInfo(system: string, call?: CallOptions): Promise<UserInfo> {
    const route = '/status/{system}/userinfo';
    const res = await this.http.request({ method: 'GET', route, params: { system }, expect: [200], call });
    const u = parseBody(UserInfoW, res, `GET ${route}`);
    return {
      user: u.user,
      group: u.group,
      groups: u.groups ?? [u.group],
      accounts: u.accounts?.map((a) => ({ name: a.name, isDefault: a.default === true })),
    };
  }
}
