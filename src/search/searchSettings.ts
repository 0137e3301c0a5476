/** Search on Cluster's settings, where a search runs, and how its counts read. */
import * as vscode from 'vscode';
import type { Partition } from '../core/model';
import { sidecarPartition } from '../core/sidecar/sidecar';


export interface SearchSettings {
  partition: string;
  maxResults: number;
  maxFileSizeMB: number;
  timeLimitMinutes: number;
  queueWaitSeconds: number;
  tool: 'auto' | 'grep' | 'rg';
}

export function searchSettings(): SearchSettings {
  const c = vscode.workspace.getConfiguration('firecrest.search');
  return {
    partition: c.get<string>('partition', '').trim(),
    maxResults: Math.max(1, c.get<number>('maxResults', 10_000)),
    maxFileSizeMB: Math.max(0.001, c.get<number>('maxFileSizeMB', 16)),
    timeLimitMinutes: Math.max(1, c.get<number>('timeLimitMinutes', 10)),
    queueWaitSeconds: Math.max(5, c.get<number>('queueWaitSeconds', 60)),
    tool: c.get<'auto' | 'grep' | 'rg'>('tool', 'auto'),
  };
}

/** The partition a search runs in: the setting, else one named for data movement, else the scheduler's default. */
export function searchPartition(setting: string, partitions: Partition[]): string | undefined {
  return sidecarPartition(setting, partitions);
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
export function ageInWords(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 1) return vscode.l10n.t('just now');
  if (min < 60) return vscode.l10n.t('{0} min ago', min);
  const h = Math.floor(min / 60);
  return h < 48 ? vscode.l10n.t('{0} h ago', h) : vscode.l10n.t('{0} days ago', Math.floor(h / 24));
}

/** "1 result in 1 file", "12 results in 3 files". */
export function resultsInFiles(matches: number, files: number): string {
  const r = matches === 1 ? vscode.l10n.t('1 result') : vscode.l10n.t('{0} results', matches.toLocaleString());
  const f = files === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', files.toLocaleString());
  return vscode.l10n.t('{0} in {1}', r, f);
}
