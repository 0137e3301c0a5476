/**
 * The Systems view's Storage group: the user's usage and limits per file system, from the storage
 * feature (a side-car job, asked for only when the user asks). Nothing is asked by expanding the
 * group: its first row says what asking costs (a short job) and asks on a click.
 */
import * as vscode from 'vscode';
import type { StorageUsage } from '../../core/facts/storage';
import type { StorageState } from '../../common/viewControls';
import { byteSize } from '../../common/byteSize';
import { clockTime } from '../../common/reachability';

export type StorageNode =
  | { kind: 'storageAsk'; profile: string; system: string; again: boolean }
  | { kind: 'storage'; profile: string; system: string; usage: StorageUsage; at: number; scratch: boolean };

const md = (s: string) => new vscode.MarkdownString(s, true);
const icon = (id: string, color?: string) => new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);

/** Used against the limit that counts: the quota, else the hard limit. */
function share(used: number, soft?: number, hard?: number): number | undefined {
  const limit = soft ?? hard;
  return limit ? used / limit : undefined;
}

const whole = (n: number) => n.toLocaleString();

export function storageDescription(u: StorageUsage): string {
  const limit = u.softLimitBytes ?? u.hardLimitBytes;
  const pct = share(u.usedBytes, u.softLimitBytes, u.hardLimitBytes);
  const space = limit ? vscode.l10n.t('{0} of {1} ({2}%)', byteSize(u.usedBytes), byteSize(limit), Math.round((pct ?? 0) * 100)) : vscode.l10n.t('{0}, no limit', byteSize(u.usedBytes));
  const fileLimit = u.softLimitFiles ?? u.hardLimitFiles;
  const files = u.files === undefined ? '' : fileLimit ? vscode.l10n.t('{0} of {1} files', whole(u.files), whole(fileLimit)) : vscode.l10n.t('{0} files', whole(u.files));
  return [space, files].filter(Boolean).join(' · ');
}

export function storageTooltip(u: StorageUsage, at: number): string {
  const lines = [vscode.l10n.t('**{0}**, from `{1}`', u.path, u.tool === 'df' ? 'df' : u.tool === 'lfs' ? 'lfs quota' : 'quota')];
  const limits = (soft?: number, hard?: number, f: (n: number) => string = byteSize) =>
    soft && hard && soft !== hard ? vscode.l10n.t('quota {0}, hard limit {1}', f(soft), f(hard)) : soft || hard ? vscode.l10n.t('limit {0}', f((soft ?? hard)!)) : vscode.l10n.t('no limit');
  lines.push(vscode.l10n.t('Space: {0} used; {1}', byteSize(u.usedBytes), limits(u.softLimitBytes, u.hardLimitBytes)));
  if (u.files !== undefined) lines.push(vscode.l10n.t('Files: {0}; {1}', whole(u.files), limits(u.softLimitFiles, u.hardLimitFiles, whole)));
  if (u.grace) lines.push(vscode.l10n.t('Over the quota: the grace period ends in {0}; after it, no more writes.', u.grace));
  if (u.shared) lines.push(vscode.l10n.t('No quota tool answered here: these are the whole file system\'s figures, every user\'s together.'));
  lines.push(vscode.l10n.t('As of {0}. Refresh (on Storage) asks the cluster again.', clockTime(at)));
  return lines.join('\n\n');
}

export function storageItem(n: StorageNode): vscode.TreeItem {
  if (n.kind === 'storageAsk') {
    const item = new vscode.TreeItem(n.again ? vscode.l10n.t('Ask the cluster again') : vscode.l10n.t('Ask the cluster for usage and limits'), vscode.TreeItemCollapsibleState.None);
    item.description = vscode.l10n.t('runs a short job');
    item.tooltip = vscode.l10n.t('Runs one short job on {0} that reads quota, lfs quota or df, and shows what it says here.', n.system);
    item.iconPath = icon('play');
    item.contextValue = ';storageAsk;';
    item.command = { title: vscode.l10n.t('Ask'), command: 'firecrest.storage.refresh', arguments: [{ profile: n.profile, system: n.system }] };
    item.id = `sa/${n.profile}/${n.system}`;
    return item;
  }
  const u = n.usage;
  const item = new vscode.TreeItem(u.path, vscode.TreeItemCollapsibleState.None);
  item.description = storageDescription(u);
  item.tooltip = md(storageTooltip(u, n.at));
  const pct = Math.max(share(u.usedBytes, u.softLimitBytes, u.hardLimitBytes) ?? 0, u.files !== undefined ? (share(u.files, u.softLimitFiles, u.hardLimitFiles) ?? 0) : 0);
  const full = (u.hardLimitBytes !== undefined && u.usedBytes >= u.hardLimitBytes) || (u.hardLimitFiles !== undefined && u.files !== undefined && u.files >= u.hardLimitFiles);
  item.iconPath = full ? icon('error', 'list.errorForeground') : pct >= 0.9 || u.grace ? icon('warning', 'list.warningForeground') : icon('database');
  item.contextValue = `;storage;${n.scratch ? 'scratch;' : ''}`;
  item.id = `st/${n.profile}/${n.system}/${u.path}`;
  return item;
}

/** The Storage group's rows for one system. */
export function storageRows(profile: string, system: string, s: StorageState | undefined): { nodes: StorageNode[]; info: { id: string; label: string; description?: string; icon: string }[]; error?: unknown } {
  const id = (k: string) => `si/${profile}/${system}/${k}`;
  if (!s?.report) {
    if (s?.running) return { nodes: [], info: [{ id: id('running'), label: vscode.l10n.t('Asking the cluster (a short job)…'), icon: 'loading~spin' }] };
    return { nodes: [{ kind: 'storageAsk', profile, system, again: s?.error !== undefined }], info: [], error: s?.error };
  }
  const at = s.at ?? Date.now();
  const nodes: StorageNode[] = s.report.usages.map((usage) => ({ kind: 'storage', profile, system, usage, at, scratch: s.scratch.has(usage.path) }));
  const info: { id: string; label: string; description?: string; icon: string }[] = s.report.missing.map((m) => ({ id: id(`missing/${m.path}`), label: m.path, description: vscode.l10n.t('no figures: {0}', m.why), icon: 'circle-slash' }));
  if (s.running) info.push({ id: id('running'), label: vscode.l10n.t('Asking the cluster again (a short job)…'), icon: 'loading~spin' });
  return { nodes, info, error: s.error };
}

/** The Storage group's description: how old its figures are. */
export function storageAge(s: StorageState | undefined): string | undefined {
  return s?.at !== undefined ? vscode.l10n.t('as of {0}', clockTime(s.at)) : undefined;
}
