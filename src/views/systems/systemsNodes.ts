/** The elements of the Systems tree and their TreeItems. */
import * as vscode from 'vscode';
import { MaintenanceError, UnauthorizedError } from '../../core/errors';
import type { ComputeNode, FileSystemInfo, Partition, Reservation, System } from '../../core/model';
import { cannotReach, clockTime, isUnreachable, siteOfError } from '../../common/reachability';
import { loadTooltip, type PartitionLoad } from './partitionLoad';
import { storageItem, type StorageNode } from './storageNodes';
import { healthIcon, healthTooltip, isMaintenanceSoon, nodeDescription, partitionDescription, reservationDescription, reservationTooltip, transferLine } from './systemsFormat';

export type Category = 'partitions' | 'nodes' | 'reservations' | 'filesystems' | 'storage' | 'userinfo';

export type SystemsNode =
  | { kind: 'connection'; profile: string; signedIn: boolean }
  /** `unreachable`: the server does not answer; the health shown is the last known, greyed. */
  | { kind: 'system'; profile: string; system: System; unreachable?: boolean }
  /** The server does not answer (since `since`): one row for the connection, with Retry. */
  | { kind: 'unreachable'; profile: string; site: string; since?: number }
  | { kind: 'category'; profile: string; system: System; category: Category; manage?: boolean; description?: string }
  | { kind: 'partition'; profile: string; system: string; partition: Partition; load?: PartitionLoad }
  | { kind: 'nodeState'; profile: string; system: string; state: string; nodes: ComputeNode[] }
  | { kind: 'computeNode'; profile: string; system: string; node: ComputeNode }
  | { kind: 'reservation'; profile: string; system: string; reservation: Reservation; manage?: boolean }
  | { kind: 'filesystem'; profile: string; system: string; fs: FileSystemInfo }
  | { kind: 'info'; id: string; label: string; description?: string; icon: string }
  | { kind: 'error'; id: string; profile: string; system?: string; what: string; error: unknown }
  | StorageNode;

const CATEGORY: Record<Category, { label: () => string; icon: string }> = {
  partitions: { label: () => vscode.l10n.t('Partitions'), icon: 'layers' },
  nodes: { label: () => vscode.l10n.t('Nodes'), icon: 'server' },
  reservations: { label: () => vscode.l10n.t('Reservations'), icon: 'calendar' },
  filesystems: { label: () => vscode.l10n.t('Filesystems'), icon: 'folder-library' },
  storage: { label: () => vscode.l10n.t('Storage'), icon: 'database' },
  userinfo: { label: () => vscode.l10n.t('User info'), icon: 'account' },
};

export const CATEGORIES = Object.keys(CATEGORY) as Category[];

const md = (s: string) => new vscode.MarkdownString(s, true);
const icon = (id: string, color?: string) => new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);

export function toTreeItem(n: SystemsNode): vscode.TreeItem {
  const { None, Collapsed, Expanded } = vscode.TreeItemCollapsibleState;
  let item: vscode.TreeItem;
  switch (n.kind) {
    case 'connection':
      item = new vscode.TreeItem(n.profile, Expanded);
      item.iconPath = icon('plug');
      item.contextValue = `;connection;${n.signedIn ? 'signedIn' : 'signedOut'};`;
      item.id = `c/${n.profile}`;
      return item;
    case 'system':
      return systemItem(n);
    case 'category':
      item = new vscode.TreeItem(CATEGORY[n.category].label(), Collapsed);
      item.iconPath = icon(CATEGORY[n.category].icon);
      item.description = n.description;
      // `manage;`: the connection can create, update and delete reservations (API v1).
      item.contextValue = `;category;${n.category};${n.manage ? 'manage;' : ''}`;
      item.id = `k/${n.profile}/${n.system.name}/${n.category}`;
      return item;
    case 'partition':
      return partitionItem(n);
    case 'nodeState':
      item = new vscode.TreeItem(n.state, Collapsed);
      item.description = String(n.nodes.length);
      item.iconPath = icon('server');
      item.contextValue = ';nodeState;';
      item.id = `ns/${n.profile}/${n.system}/${n.state}`;
      return item;
    case 'computeNode': {
      item = new vscode.TreeItem(n.node.name, None);
      item.description = nodeDescription(n.node);
      const down = n.node.states.some((s) => /DOWN|DRAIN|FAIL|OFFLINE/.test(s));
      item.iconPath = down ? icon('vm-outline', 'list.errorForeground') : icon('vm');
      item.contextValue = ';computeNode;';
      item.id = `n/${n.profile}/${n.system}/${n.node.name}`;
      return item;
    }
    case 'reservation': {
      const soon = isMaintenanceSoon(n.reservation);
      item = new vscode.TreeItem(n.reservation.name, None);
      item.description = reservationDescription(n.reservation);
      item.iconPath = soon ? icon('warning', 'list.warningForeground') : icon('calendar');
      item.tooltip = md(reservationTooltip(n.reservation));
      item.contextValue = `;reservation;${soon ? 'maintenance;' : ''}${n.manage ? 'manage;' : ''}`;
      item.id = `r/${n.profile}/${n.system}/${n.reservation.name}`;
      return item;
    }
    case 'filesystem':
      item = new vscode.TreeItem(n.fs.path, None);
      item.description = n.fs.dataType + (n.fs.defaultWorkDir ? vscode.l10n.t(' · default work dir') : '');
      item.iconPath = icon('root-folder');
      item.contextValue = ';filesystem;openable;';
      item.tooltip = vscode.l10n.t('Open {0} on {1} as a remote folder', n.fs.path, n.system);
      item.id = `f/${n.profile}/${n.system}/${n.fs.path}`;
      return item;
    case 'unreachable':
      item = new vscode.TreeItem(cannotReach(n.site), None);
      item.description = n.since !== undefined ? vscode.l10n.t('since {0} · trying again', clockTime(n.since)) : vscode.l10n.t('trying again');
      item.tooltip = vscode.l10n.t('FirecREST at {0} does not answer. It is tried again by itself; Retry tries now. The details are in the FirecREST log.', n.site);
      item.iconPath = icon('debug-disconnect', 'list.warningForeground');
      item.contextValue = ';unreachable;';
      item.command = { title: vscode.l10n.t('Retry'), command: 'firecrest.retryConnection', arguments: [{ profile: n.profile }] };
      item.id = `u/${n.profile}`;
      return item;
    case 'info':
      item = new vscode.TreeItem(n.label, None);
      item.description = n.description;
      item.iconPath = icon(n.icon);
      item.contextValue = ';info;';
      item.id = n.id;
      return item;
    case 'error':
      return errorItem(n);
    case 'storageAsk':
    case 'storage':
      return storageItem(n);
  }
}

function systemItem(n: Extract<SystemsNode, { kind: 'system' }>): vscode.TreeItem {
  const item = new vscode.TreeItem(n.system.name, vscode.TreeItemCollapsibleState.Collapsed);
  if (n.unreachable) {
    // Not "ok" while nothing answers: the last known state, said to be such.
    item.description = vscode.l10n.t('unknown (was {0})', n.system.health.status);
    item.iconPath = icon('circle-large-outline', 'disabledForeground');
    item.tooltip = md([vscode.l10n.t('**{0}**: its state is unknown while FirecREST does not answer (last known: {1}).', n.system.name, n.system.health.status), transferLine(n.system)].filter(Boolean).join('\n\n'));
    item.contextValue = ';system;health-unknown;';
    item.id = `s/${n.profile}/${n.system.name}`;
    return item;
  }
  item.description = n.system.health.status;
  const h = healthIcon(n.system.health);
  item.iconPath = icon(h.id, h.color);
  item.tooltip = md([healthTooltip(n.system.name, n.system.health), transferLine(n.system)].filter(Boolean).join('\n\n'));
  item.contextValue = `;system;health-${n.system.health.status};`;
  item.id = `s/${n.profile}/${n.system.name}`;
  return item;
}

function partitionItem(n: Extract<SystemsNode, { kind: 'partition' }>): vscode.TreeItem {
  const item = new vscode.TreeItem(n.partition.name, vscode.TreeItemCollapsibleState.None);
  item.description = partitionDescription(n.partition, n.load);
  item.iconPath = n.partition.isDefault ? icon('star-full') : icon(n.partition.state === 'UP' ? 'layers-active' : 'layers-dot', n.partition.state === 'UP' ? undefined : 'list.warningForeground');
  item.contextValue = `;partition;${n.partition.isDefault ? 'default;' : ''}`;
  item.id = `p/${n.profile}/${n.system}/${n.partition.name}`;
  {
    const lines: string[] = [];
    if (n.partition.cpus !== undefined) lines.push(vscode.l10n.t('{0} nodes, {1} CPUs', n.partition.totalNodes ?? '?', n.partition.cpus));
    if (n.partition.maxTimeSeconds !== undefined) lines.push(Number.isFinite(n.partition.maxTimeSeconds) ? vscode.l10n.t('max time {0} min', Math.round(n.partition.maxTimeSeconds / 60)) : vscode.l10n.t('max time unlimited'));
    if (n.load) lines.push(loadTooltip(n.load));
    if (lines.length) item.tooltip = lines.join('\n');
  }
  return item;
}

function errorItem(n: Extract<SystemsNode, { kind: 'error' }>): vscode.TreeItem {
  const { None } = vscode.TreeItemCollapsibleState;
  let item: vscode.TreeItem;
  if (isUnreachable(n.error)) {
    // What failed here failed because nothing answers: said as such, with the connection's Retry.
    item = new vscode.TreeItem(cannotReach(siteOfError(n.error) ?? n.profile), None);
    item.description = vscode.l10n.t('{0}: trying again', n.what);
    item.tooltip = vscode.l10n.t('FirecREST does not answer. It is tried again by itself; Retry tries now. The details are in the FirecREST log.');
    item.iconPath = icon('debug-disconnect', 'list.warningForeground');
    item.contextValue = ';unreachable;';
    item.command = { title: vscode.l10n.t('Retry'), command: 'firecrest.retryConnection', arguments: [{ profile: n.profile }] };
    item.id = n.id;
    return item;
  }
  const signIn = n.error instanceof UnauthorizedError;
  // A planned maintenance is said as such, in the site's words: not an error of ours or an outage.
  const maintenance = n.error instanceof MaintenanceError;
  const message = n.error instanceof Error ? n.error.message : String(n.error);
  item = new vscode.TreeItem(signIn ? vscode.l10n.t('Not signed in') : maintenance ? vscode.l10n.t('In maintenance') : vscode.l10n.t('Could not load {0}', n.what), None);
  item.description = maintenance ? message.replace(/^The site is in maintenance(?: \([^)]*\))?: /, '') : message;
  item.tooltip = message;
  item.iconPath = signIn ? icon('account') : maintenance ? icon('tools', 'list.warningForeground') : icon('error', 'list.errorForeground');
  item.contextValue = signIn ? ';error;signin;' : ';error;retry;';
  item.command = signIn
    ? { title: vscode.l10n.t('Sign In'), command: 'firecrest.signIn', arguments: [n] }
    : { title: vscode.l10n.t('Retry'), command: 'firecrest.systems.retry', arguments: [n] };
  item.id = n.id;
  return item;
}
