/**
 * From the form to the API and back: the time window of a preset, the AccountingQuery, the
 * filters the API has no parameter for (state, partition), and the rows the table shows.
 * Pure functions: unit tests run them without VS Code.
 */
import * as l10n from '@vscode/l10n';
import type { AccountingQuery } from '../../core/api';
import type { Job } from '../../core/model';
import { isTransferJob } from '../../common/transferJobs';
import type { AccountingForm, AccountingRow } from '../protocol';

const DAY = 86_400;

/** Local midnight of a `YYYY-MM-DD` day, in epoch seconds. */
function localDay(day: string): number {
  const [y, m, d] = day.split('-').map(Number);
  return Math.floor(new Date(y, m - 1, d).getTime() / 1000);
}

/** The window a form asks for, epoch seconds; `now` is a parameter so tests can fix it. */
export function timeWindow(form: AccountingForm, now = Date.now()): { start: number; end?: number } {
  const nowS = Math.floor(now / 1000);
  switch (form.range) {
    case 'today': {
      const d = new Date(now);
      return { start: Math.floor(new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() / 1000) };
    }
    case '7d':
      return { start: nowS - 7 * DAY };
    case '30d':
      return { start: nowS - 30 * DAY };
    case 'custom': {
      const start = form.from ? localDay(form.from) : nowS - 7 * DAY;
      // `to` is inclusive: the whole day.
      const end = form.to ? localDay(form.to) + DAY - 1 : undefined;
      if (end !== undefined && end < start) throw new RangeError(l10n.t('The range ends ({0}) before it starts ({1}).', form.to, form.from));
      return { start, end };
    }
  }
}

export function jobIdList(s: string): string[] {
  return s.split(/[\s,;]+/).map((x) => x.trim()).filter(Boolean);
}

export function toAccountingQuery(form: AccountingForm, now = Date.now()): AccountingQuery {
  const w = timeWindow(form, now);
  const ids = jobIdList(form.jobIds);
  return {
    startTime: w.start,
    endTime: w.end,
    jobIds: ids.length ? ids : undefined,
    allUsers: form.allUsers || undefined,
    account: form.account.trim() || undefined,
    name: form.name.trim() || undefined,
  };
}

/** Filters the API cannot apply (no state or partition parameter on either version). */
export function matchesForm(job: Job, form: AccountingForm): boolean {
  // The servers' transfer jobs only when asked for (or named in the name filter).
  if (!form.transferJobs && isTransferJob(job) && form.name.trim() !== job.name) return false;
  if (form.state && job.stateClass !== form.state) return false;
  const partition = form.partition.trim();
  if (partition && !(job.partition ?? '').split(',').includes(partition)) return false;
  return true;
}

/**
 * Slurm's `CANCELLED by <uid>` in words: the user's own name for their own uid (`me`), else
 * `uid <n>` (a uid alone reads like a count). Other states unchanged.
 */
export function stateInWords(state: string, me?: { id: string; name: string }): string {
  const m = /^(\S+) by (\d+)$/.exec(state);
  if (!m) return state;
  return `${m[1]} by ${me && me.id === m[2] ? me.name : `uid ${m[2]}`}`;
}

/** `me`: the user, so that `CANCELLED by <uid>` names them. */
export function toRow(j: Job, me?: { id: string; name: string }): AccountingRow {
  return {
    id: j.id,
    name: j.name,
    state: stateInWords(j.state, me),
    stateClass: j.stateClass,
    partition: j.partition,
    account: j.account,
    user: j.user,
    nodes: j.nodeCount,
    submit: j.submitTime,
    start: j.startTime,
    end: j.endTime,
    elapsed: j.elapsedSeconds,
    exitCode: j.exitCode,
  };
}
