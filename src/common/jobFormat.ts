/**
 * The words and icons of a job row. Pure functions (no `vscode`), so the 10,000-job benchmark and
 * the tooltip share them with the tree.
 */
import * as l10n from '@vscode/l10n';
import type { Job } from '../core/model';
import { explainPendingReason } from '../core/pendingReasons';
import { isTransferJob } from './transferJobs';

export type JobGroup = 'running' | 'pending' | 'finished' | 'transfers';

export function groupOf(job: Job): JobGroup {
  if (isTransferJob(job)) return 'transfers';
  // Everything not final and not pending (RUNNING, COMPLETING, SUSPENDED...) is "in progress".
  return stateGroup(job);
}

/** A group's label in the display language (read when a tree renders, after l10n is configured). */
export function groupLabel(group: JobGroup): string {
  const labels: Record<JobGroup, string> = {
    running: l10n.t('Running'),
    pending: l10n.t('Pending'),
    finished: l10n.t('Recently finished'),
    transfers: l10n.t('Transfers and searches'),
  };
  return labels[group];
}

/** Slurm-like: `12:03`, `1:00:00`, `2-03:04:05`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => (n < 10 ? '0' + n : String(n));
  if (d > 0) return `${d}-${two(h)}:${two(m)}:${two(sec)}`;
  if (h > 0) return `${h}:${two(m)}:${two(sec)}`;
  return `${m}:${two(sec)}`;
}

/** Elapsed seconds now: counted from the start time while running, so rows do not lag a poll. */
export function elapsedOf(job: Job, nowSeconds: number): number | undefined {
  if (!job.isFinal && job.startTime && job.startTime > 0 && job.stateClass === 'running') {
    return Math.max(job.elapsedSeconds ?? 0, nowSeconds - job.startTime);
  }
  return job.elapsedSeconds;
}

/** Where a job's state puts it (running, pending or finished), whatever group lists it. */
function stateGroup(job: Job): Exclude<JobGroup, 'transfers'> {
  if (job.isFinal) return 'finished';
  return job.stateClass === 'pending' ? 'pending' : 'running';
}

/** What a job row's description can show (`firecrest.jobs.description`), in the order given. */
export const DESCRIPTION_FIELDS = ['status', 'partition', 'nodes', 'account', 'user', 'submitted', 'started', 'ended'] as const;
export type DescriptionField = (typeof DESCRIPTION_FIELDS)[number];

/** A running job this close to its time limit is flagged. */
const NEAR_LIMIT = 0.9;

/**
 * The row's description: by default the status (running: elapsed against the limit, flagged near
 * it; pending: the reason; finished: the state and exit code), then any other fields asked for.
 */
export function describeJob(job: Job, nowSeconds: number, fields: readonly DescriptionField[] = ['status']): string {
  const parts: string[] = [];
  for (const f of fields) {
    const text = describeField(job, nowSeconds, f);
    if (text) parts.push(text);
  }
  return parts.join(' · ');
}

function describeField(job: Job, nowSeconds: number, field: DescriptionField): string | undefined {
  switch (field) {
    case 'status':
      return describeStatus(job, nowSeconds);
    case 'partition':
      return job.partition || undefined;
    case 'nodes':
      if (!job.nodes && !job.nodeCount) return undefined;
      return job.nodeCount && job.nodeCount > 1 ? `${l10n.t('{0} nodes', job.nodeCount)}${job.nodes ? ` ${job.nodes}` : ''}` : job.nodes || l10n.t('{0} node', job.nodeCount ?? 1);
    case 'account':
      return job.account || undefined;
    case 'user':
      return job.user || undefined;
    case 'submitted':
      return job.submitTime ? l10n.t('submitted {0}', clock(job.submitTime, nowSeconds)) : undefined;
    case 'started':
      if (job.startTime) return l10n.t('started {0}', clock(job.startTime, nowSeconds));
      if (job.isFinal || job.stateClass !== 'pending') return undefined;
      return job.expectedStartTime ? l10n.t('expected to start {0}', clock(job.expectedStartTime, nowSeconds)) : l10n.t('no start estimate yet');
    case 'ended':
      return job.endTime && job.isFinal ? l10n.t('ended {0}', clock(job.endTime, nowSeconds)) : undefined;
  }
}

/** `14:03` today, `Nov 24 14:03` before. */
function clock(epoch: number, nowSeconds: number): string {
  const d = new Date(epoch * 1000);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return new Date(nowSeconds * 1000).toDateString() === d.toDateString() ? hm : `${d.toLocaleString('en', { month: 'short' })} ${d.getDate()} ${hm}`;
}

function describeStatus(job: Job, nowSeconds: number): string {
  switch (stateGroup(job)) {
    case 'running': {
      const el = elapsedOf(job, nowSeconds);
      const elapsed = el === undefined ? '?' : formatDuration(el);
      let text = job.timeLimitSeconds ? `${elapsed} / ${formatDuration(job.timeLimitSeconds)}` : elapsed;
      if (el !== undefined && job.timeLimitSeconds && el >= NEAR_LIMIT * job.timeLimitSeconds) text += ` ⚠ ${l10n.t('{0}% of limit', Math.min(100, Math.floor((100 * el) / job.timeLimitSeconds)))}`;
      return job.stateClass === 'running' && baseState(job) === 'RUNNING' ? text : `${text} · ${baseState(job)}`;
    }
    case 'pending':
      return job.reason && job.reason !== 'None' ? job.reason : l10n.t('pending');
    case 'finished': {
      const state = baseState(job);
      if (job.exitCode === undefined) return state;
      return job.signal ? `${state} · exit ${job.exitCode} (signal ${job.signal})` : `${state} · exit ${job.exitCode}`;
    }
  }
}

/** `CANCELLED by 1001` -> `CANCELLED`. */
export function baseState(job: Job): string {
  const i = job.state.indexOf(' ');
  return i > 0 ? job.state.slice(0, i) : job.state;
}

export interface IconSpec {
  id: string;
  color?: string;
}

export function iconOf(job: Job): IconSpec {
  switch (job.stateClass) {
    case 'running':
      return { id: 'play-circle', color: 'charts.green' };
    case 'pending':
      return { id: 'clock', color: 'charts.yellow' };
    case 'completed':
      return { id: 'pass', color: 'testing.iconPassed' };
    case 'failed':
      return { id: 'error', color: 'testing.iconFailed' };
    case 'cancelled':
      return { id: 'circle-slash', color: 'disabledForeground' };
    default:
      return { id: job.isFinal ? 'question' : 'loading~spin' };
  }
}

/** How a finished job ended, in one sentence (notifications, the follower's last line). */
export function endingOf(job: Job): string {
  const state = baseState(job);
  const code = job.exitCode !== undefined ? l10n.t(' with exit code {0}', job.exitCode) : '';
  const sig = job.signal ? ` (signal ${job.signal})` : '';
  return `${state.toLowerCase()}${code}${sig}`;
}

const escapeCell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/</g, '&lt;');

function when(epoch?: number): string | undefined {
  return epoch && epoch > 0 ? new Date(epoch * 1000).toLocaleString() : undefined;
}

/** Every field of the record as a Markdown table (the row tooltip and the details document). */
/**
 * The job's tooltip: a few lines that fit beside the tree (state, where it runs, its times);
 * everything else is in Show Job Details.
 */
export function jobTooltip(job: Job, system: string, nowSeconds = Date.now() / 1000): string {
  const where = [job.partition && `partition ${job.partition}`, job.nodes && `on ${job.nodes}`, job.account && `account ${job.account}`].filter(Boolean).join(', ');
  const lines = [
    `**${escapeCell(job.id)} ${escapeCell(job.name)}** on ${escapeCell(system)}`,
    `${escapeCell(job.state)}: ${escapeCell(describeJob(job, nowSeconds))}`,
    where && escapeCell(where),
    job.workingDirectory && `in \`${job.workingDirectory.replace(/`/g, "'")}\``,
    pendingText(job),
    l10n.t('*Show Job Details* for everything.'),
  ].filter(Boolean);
  return lines.join('  \n');
}

/** A pending job's reason in words, with what to do (Markdown), or undefined. */
function pendingText(job: Job): string | undefined {
  const e = job.isFinal ? undefined : explainPendingReason(job.reason);
  return e && `*${l10n.t('Waiting:')}* ${escapeCell(e.why)}${e.advice ? ` ${escapeCell(e.advice.replace(/<jobid>/g, job.id))}` : ''}`;
}

export function jobMarkdownTable(job: Job, system: string): string {
  const rows: [string, string | number | undefined][] = [
    [l10n.t('Job'), job.id],
    [l10n.t('Name'), job.name],
    [l10n.t('System'), system],
    [l10n.t('State'), job.state],
    [l10n.t('Reason'), job.reason && [job.reason, explainPendingReason(job.reason)?.why].filter(Boolean).join(': ')],
    [l10n.t('Exit code'), job.exitCode],
    [l10n.t('Signal'), job.signal],
    [l10n.t('User'), job.user],
    [l10n.t('Group'), job.group],
    [l10n.t('Account'), job.account],
    [l10n.t('Partition'), job.partition],
    [l10n.t('Nodes'), job.nodes],
    [l10n.t('Node count'), job.nodeCount],
    [l10n.t('Cluster'), job.cluster],
    [l10n.t('Priority'), job.priority],
    [l10n.t('Submitted'), when(job.submitTime)],
    ...(job.stateClass === 'pending' ? [[l10n.t('Expected to start'), job.expectedStartTime ? when(job.expectedStartTime) : l10n.t('Slurm has no estimate yet')] as [string, string]] : [[l10n.t('Started'), when(job.startTime)] as [string, string | undefined]]),
    [l10n.t('Ended'), when(job.endTime)],
    [l10n.t('Elapsed'), job.elapsedSeconds === undefined ? undefined : formatDuration(job.elapsedSeconds)],
    [l10n.t('Time limit'), job.timeLimitSeconds === undefined ? undefined : formatDuration(job.timeLimitSeconds)],
    [l10n.t('Working directory'), job.workingDirectory],
    [l10n.t('Output'), job.stdoutPath],
    [l10n.t('Error'), job.stderrPath],
  ];
  const lines = ['| Field | Value |', '|---|---|'];
  for (const [k, v] of rows) if (v !== undefined && v !== '') lines.push(`| ${k} | ${escapeCell(String(v))} |`);
  return lines.join('\n');
}

/** A job's state for a person: `CANCELLED by 1001` names the user when it is them ("by you"). */
export function stateInWords(j: Job, me?: { id: string; name: string }): string {
  const by = /^(\S+) by (\d+)$/.exec(j.state);
  if (!by) return j.state;
  return me && String(me.id) === by[2] ? l10n.t('{0} by you ({1})', by[1], me.name) : l10n.t('{0} by user {1}', by[1], by[2]);
}
