/**
 * TreeDataProvider of the Systems view: connection (when several) > system > category > items.
 * Children are fetched on expand through the model; a failure becomes an error node in place.
 */
import * as vscode from 'vscode';
import type { ComputeNode, System, UserInfo } from '../../core/model';
import type { SystemsModel } from './systemsModel';
import { emptyLoad, partitionLoads } from './partitionLoad';
import { isUnreachable, siteOf } from '../../common/reachability';
import { CATEGORIES, toTreeItem, type SystemsNode } from './systemsNodes';
import { storageAge, storageRows } from './storageNodes';
import type { StorageSource } from '../../common/viewControls';

/** More nodes than this are grouped by state. */
const GROUP_NODES_ABOVE = 20;

export class SystemsProvider implements vscode.TreeDataProvider<SystemsNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<SystemsNode | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly model: SystemsModel, private readonly storage?: StorageSource) {
    const subs = [model.onDidChange(() => this._onDidChangeTreeData.fire(undefined))];
    if (storage) subs.push(storage.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
    this.sub = vscode.Disposable.from(...subs);
  }

  getTreeItem(n: SystemsNode): vscode.TreeItem {
    return toTreeItem(n);
  }

  async getChildren(n?: SystemsNode): Promise<SystemsNode[]> {
    if (!n) {
      const infos = this.model.connections.connections();
      if (infos.length === 1) return this.systemNodes(infos[0].profile.name);
      return infos.map((c) => ({ kind: 'connection', profile: c.profile.name, signedIn: c.state !== 'signed-out' }));
    }
    switch (n.kind) {
      case 'connection':
        return this.systemNodes(n.profile);
      case 'system': {
        const manage = await this.canManageReservations(n.profile);
        const age = storageAge(this.storage?.state(n.profile, n.system.name));
        return CATEGORIES.filter((c) => c !== 'storage' || this.storage).map((category) => ({ kind: 'category', profile: n.profile, system: n.system, category, manage: category === 'reservations' && manage, ...(category === 'storage' && age ? { description: age } : {}) }));
      }
      case 'category':
        return this.categoryChildren(n.profile, n.system, n.category, n.manage);
      case 'nodeState':
        return n.nodes.map((node) => ({ kind: 'computeNode', profile: n.profile, system: n.system, node }));
      default:
        return [];
    }
  }

  private async systemNodes(profile: string): Promise<SystemsNode[]> {
    const info = this.model.connections.connections().find((c) => c.profile.name === profile);
    const site = info ? siteOf(info.profile) : profile;
    const down: SystemsNode = { kind: 'unreachable', profile, site, since: info?.unreachableSince };
    try {
      const systems = await this.model.systems(profile);
      if (systems.length === 0) return [{ kind: 'info', id: `i/${profile}/none`, label: vscode.l10n.t('No systems'), icon: 'info' }];
      const unreachable = info?.unreachableSince !== undefined;
      const rows = systems.map((system): SystemsNode => ({ kind: 'system', profile, system, ...(unreachable ? { unreachable } : {}) }));
      return unreachable ? [down, ...rows] : rows;
    } catch (error) {
      // A server that does not answer is one row with Retry, not its network error.
      if (isUnreachable(error)) return [down];
      return [{ kind: 'error', id: `e/${profile}`, profile, what: 'systems', error }];
    }
  }

  /** Draws the tree again from what is known (a connection stopped or started answering). */
  repaint(): void {
    this._onDidChangeTreeData.fire(undefined);
  }

  /** API v1 connections with the reservations service (their menus offer create/update/delete). */
  private async canManageReservations(profile: string): Promise<boolean> {
    const client = await this.model.connections.client(profile).catch(() => undefined);
    return client?.apiVersion === 'v1' && client.capabilities.reservationsManagement;
  }

  private async categoryChildren(profile: string, system: System, category: (typeof CATEGORIES)[number], manage = false): Promise<SystemsNode[]> {
    const name = system.name;
    const base = { profile, system: name };
    const fail = (what: string, error: unknown): SystemsNode[] => [{ kind: 'error', id: `e/${profile}/${name}/${category}`, profile, system: name, what, error }];
    const empty = (label: string): SystemsNode[] => [{ kind: 'info', id: `i/${profile}/${name}/${category}`, label, icon: 'info' }];
    switch (category) {
      case 'filesystems':
        return system.fileSystems.length ? system.fileSystems.map((fs) => ({ kind: 'filesystem', ...base, fs })) : empty(vscode.l10n.t('No filesystems'));
      case 'partitions':
        try {
          // The load: one node listing (shared with the Nodes group) and one all-users job listing
          // per system, asked with the partitions; either may be missing (the partitions still show).
          const [parts, nodes, jobs] = await Promise.all([
            this.model.fetch(profile, name, 'partitions', (c) => c.partitions(name)),
            this.model.fetch(profile, name, 'nodes', (c) => c.nodes(name)).catch(() => undefined),
            this.model.fetch(profile, name, 'queue', (c) => c.jobs(name, { allUsers: true, timeWindow: '1h', queueOnly: true })).catch(() => undefined),
          ]);
          const loads = nodes || jobs ? partitionLoads(nodes, jobs) : undefined;
          return parts.length ? parts.map((partition) => ({ kind: 'partition', ...base, partition, load: loads ? (loads.get(partition.name) ?? emptyLoad(nodes !== undefined, jobs !== undefined)) : undefined })) : empty(vscode.l10n.t('No partitions'));
        } catch (e) {
          return fail('partitions', e);
        }
      case 'reservations':
        try {
          const res = await this.model.fetch(profile, name, 'reservations', (c) => c.reservations(name));
          return res.length ? res.map((reservation) => ({ kind: 'reservation', ...base, reservation, manage })) : empty(vscode.l10n.t('No reservations'));
        } catch (e) {
          return fail('reservations', e);
        }
      case 'nodes':
        try {
          const nodes = await this.model.fetch(profile, name, 'nodes', (c) => c.nodes(name));
          if (nodes.length === 0) return empty(vscode.l10n.t('No nodes'));
          if (nodes.length <= GROUP_NODES_ABOVE) return nodes.map((node) => ({ kind: 'computeNode', ...base, node }));
          return groupByState(nodes).map(([state, list]) => ({ kind: 'nodeState', ...base, state, nodes: list }));
        } catch (e) {
          return fail('nodes', e);
        }
      case 'storage': {
        // Asked for only on request (a job on the cluster): see storageNodes.ts.
        const rows = storageRows(profile, name, this.storage?.state(profile, name));
        return [
          ...(rows.error !== undefined ? fail('storage figures', rows.error) : []),
          ...rows.nodes,
          ...rows.info.map((i): SystemsNode => ({ kind: 'info', ...i })),
        ];
      }
      case 'userinfo':
        try {
          return userInfoNodes(profile, name, await this.model.fetch(profile, name, 'userinfo', (c) => c.userInfo(name)));
        } catch (e) {
          return fail('user info', e);
        }
    }
  }

  dispose(): void {
    this.sub.dispose();
    this._onDidChangeTreeData.dispose();
  }
}

function groupByState(nodes: ComputeNode[]): [string, ComputeNode[]][] {
  const by = new Map<string, ComputeNode[]>();
  for (const n of nodes) {
    const state = n.states.join('+') || 'UNKNOWN';
    let list = by.get(state);
    if (!list) by.set(state, (list = []));
    list.push(n);
  }
  return [...by.entries()].sort((a, b) => b[1].length - a[1].length);
}

function userInfoNodes(profile: string, system: string, u: UserInfo): SystemsNode[] {
  const id = (k: string) => `u/${profile}/${system}/${k}`;
  const out: SystemsNode[] = [
    { kind: 'info', id: id('user'), label: `User ${u.user.name}`, description: `uid ${u.user.id}`, icon: 'person' },
    { kind: 'info', id: id('group'), label: `Group ${u.group.name}`, description: `gid ${u.group.id}`, icon: 'organization' },
  ];
  if (u.groups.length) out.push({ kind: 'info', id: id('groups'), label: 'Groups', description: u.groups.map((g) => g.name).join(', '), icon: 'organization' });
  if (u.accounts?.length) {
    const accounts = u.accounts.map((a) => (a.isDefault ? `${a.name} (default)` : a.name)).join(', ');
    out.push({ kind: 'info', id: id('accounts'), label: 'Accounts', description: accounts, icon: 'credit-card' });
  }
  return out;
}
