/** Words for the Systems tree (pure, no `vscode`). */
import * as l10n from '@vscode/l10n';
import { loadDescription, type PartitionLoad } from './partitionLoad';
import type { ComputeNode, Health, Partition, Reservation, System } from '../../core/model';

export const MAINTENANCE_WARN_DAYS = 7;

/** A maintenance reservation that has not ended and starts within a week. */
export function isMaintenanceSoon(r: Reservation, now = Date.now()): boolean {
  const maint = /maint/i.test(r.name) || (r.flags ?? []).some((f) => /maint/i.test(f));
  if (!maint) return false;
  return r.end.getTime() > now && r.start.getTime() - now < MAINTENANCE_WARN_DAYS * 86_400_000;
}

export function healthIcon(h: Health): { id: string; color?: string } {
  switch (h.status) {
    case 'ok':
      return { id: 'pass-filled', color: 'testing.iconPassed' };
    case 'degraded':
      return { id: 'warning', color: 'list.warningForeground' };
    case 'down':
      return { id: 'error', color: 'list.errorForeground' };
    default:
      return { id: 'question' };
  }
}

export function healthTooltip(name: string, h: Health): string {
  const lines = [`**${name}**: ${h.status}`];
  const failing = h.services.filter((s) => !s.healthy);
  for (const s of failing) lines.push(`- $(error) ${s.service}${s.path ? ` (${s.path})` : ''}: ${s.message ?? 'unhealthy'}`);
  const fine = h.services.filter((s) => s.healthy);
  if (fine.length) lines.push(`- healthy: ${fine.map((s) => s.service + (s.path ? ` ${s.path}` : '')).join(', ')}`);
  const checked = h.lastChecked ?? h.services.find((s) => s.lastChecked)?.lastChecked;
  if (checked) lines.push(`\n${l10n.t('last checked {0}', checked.toLocaleString())}`);
  return lines.join('\n');
}

/** How large files move on a system (its staged transfer method), for the system's tooltip. */
export function transferLine(s: Pick<System, 'transferMethod' | 'maxDirectTransferSize'>): string | undefined {
  const direct = `${Math.round(s.maxDirectTransferSize / 1024)} KiB`;
  if (!s.transferMethod) return undefined;
  if (s.transferMethod === 's3' || s.transferMethod === 'xfer-external') return l10n.t('Files up to {0} move directly; larger ones are staged ({1}).', direct, s.transferMethod);
  if (s.transferMethod === 'streamer') return l10n.t('Files up to {0} move directly; larger ones stream from a transfer job on the cluster (streamer).', direct);
  return l10n.t('$(warning) Files up to {0} move directly; this site stages larger ones with "{1}", which the extension does not speak yet.', direct, s.transferMethod);
}

/**
 * `UP · 2/10 idle · 12 running · 80 pending · default` with the load (first, where a narrow side
 * bar still shows it; the CPUs go to the tooltip), `UP · 10 nodes · 640 CPUs · default` without.
 */
export function partitionDescription(p: Partition, load?: PartitionLoad): string {
  const parts = [p.state];
  if (load && (load.nodes !== undefined || load.running !== undefined)) parts.push(loadDescription(load));
  if (load?.nodes === undefined && p.totalNodes !== undefined) parts.push(`${p.totalNodes} node${p.totalNodes === 1 ? '' : 's'}`);
  if (!load && p.cpus !== undefined) parts.push(`${p.cpus} CPUs`);
  if (p.isDefault) parts.push('default');
  return parts.join(' · ');
}

export function nodeDescription(n: ComputeNode): string {
  const parts = [n.states.join('+') || 'UNKNOWN'];
  if (n.partitions.length) parts.push(n.partitions.join(', '));
  parts.push(n.allocCpus !== undefined ? `${n.allocCpus}/${n.cpus} CPUs` : `${n.cpus} CPUs`);
  return parts.join(' · ');
}

function shortDate(d: Date): string {
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });
}

export function reservationDescription(r: Reservation): string {
  return `${r.state} · ${shortDate(r.start)} → ${shortDate(r.end)} · ${r.nodeList}`;
}

export function reservationTooltip(r: Reservation, now = Date.now()): string {
  const lines = [`**${r.name}** (${r.state})`, `- start: ${r.start.toLocaleString()}`, `- end: ${r.end.toLocaleString()}`, `- nodes: ${r.nodeList}`];
  if (r.features) lines.push(`- features: ${r.features}`);
  if (r.flags?.length) lines.push(`- flags: ${r.flags.join(', ')}`);
  if (r.users?.length) lines.push(`- users: ${r.users.join(', ')}`);
  if (r.accounts?.length) lines.push(`- accounts: ${r.accounts.join(', ')}`);
  if (isMaintenanceSoon(r, now)) {
    const days = (r.start.getTime() - now) / 86_400_000;
    const starts = days < 1 ? l10n.t('Maintenance starts in {0} hours', Math.round(days * 24)) : l10n.t('Maintenance starts in {0} days', Math.round(days));
    lines.push(`\n$(warning) ${days > 0 ? starts : l10n.t('Maintenance in progress')}`);
  }
  return lines.join('\n');
}
