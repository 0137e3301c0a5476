/**
 * "Checking queues": each partition's load, from one node listing and one all-users job listing
 * of the system (never a request per partition): idle and total nodes, running and pending jobs,
 * and the longest current pending wait.
 */
import * as l10n from '@vscode/l10n';
import type { ComputeNode, Job } from '../../core/model';

export interface PartitionLoad {
  /** Undefined when the node listing was not available. */
  nodes?: number;
  idleNodes?: number;
  /** Undefined when the job listing was not available (a site may refuse all-users listings). */
  running?: number;
  pending?: number;
  /** Seconds the longest-waiting pending job has waited. */
  longestWaitSeconds?: number;
}

const IDLE = new Set(['IDLE']);

/** The load of a partition nothing was listed for: zero of what was asked, nothing of what was not. */
export function emptyLoad(haveNodes: boolean, haveJobs: boolean): PartitionLoad {
  return { ...(haveNodes ? { nodes: 0, idleNodes: 0 } : {}), ...(haveJobs ? { running: 0, pending: 0 } : {}) };
}

export function partitionLoads(nodes: ComputeNode[] | undefined, jobs: Job[] | undefined, now = Date.now() / 1000): Map<string, PartitionLoad> {
  const out = new Map<string, PartitionLoad>();
  const of = (p: string) => {
    let l = out.get(p);
    if (!l) {
      l = emptyLoad(nodes !== undefined, jobs !== undefined);
      out.set(p, l);
    }
    return l;
  };
  for (const n of nodes ?? []) {
    for (const p of n.partitions) {
      const l = of(p);
      l.nodes = (l.nodes ?? 0) + 1;
      if (n.states.length > 0 && n.states.every((s) => IDLE.has(s))) l.idleNodes = (l.idleNodes ?? 0) + 1;
    }
  }
  for (const j of jobs ?? []) {
    // A job may name several partitions (`debug,long`) while pending: it counts in each.
    for (const p of (j.partition ?? '').split(',').filter(Boolean)) {
      const l = of(p);
      if (j.stateClass === 'running') l.running = (l.running ?? 0) + 1;
      else if (j.stateClass === 'pending') {
        l.pending = (l.pending ?? 0) + 1;
        if (j.submitTime !== undefined) l.longestWaitSeconds = Math.max(l.longestWaitSeconds ?? 0, Math.max(0, now - j.submitTime));
      }
    }
  }
  return out;
}

function duration(s: number): string {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** `3/10 idle · 12 running · 80 pending` (nodes only when the job listing is missing). */
export function loadDescription(l: PartitionLoad): string {
  const parts: string[] = [];
  if (l.nodes !== undefined) parts.push(`${l.idleNodes ?? 0}/${l.nodes} idle`);
  if (l.running !== undefined) parts.push(`${l.running} running`);
  if (l.pending !== undefined) parts.push(`${l.pending} pending`);
  return parts.join(' · ');
}

export function loadTooltip(l: PartitionLoad): string {
  const lines: string[] = [];
  if (l.nodes !== undefined) lines.push(l10n.t('{0} of {1} nodes idle', l.idleNodes ?? 0, l.nodes));
  if (l.running !== undefined) lines.push(l10n.t('{0} jobs running, {1} pending (all users)', l.running, l.pending ?? 0));
  else lines.push(l10n.t('jobs of all users: not available on this system'));
  if (l.longestWaitSeconds !== undefined) lines.push(l10n.t('longest current wait: {0}', duration(l.longestWaitSeconds)));
  return lines.join('\n');
}
