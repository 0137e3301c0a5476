/**
 * The checks that need the cluster: partitions, time limits, reservations, accounts and upcoming
 * maintenance. Pure (no `vscode`): a parsed script and a snapshot in, problems with their quick-fix
 * data out, so the rules are testable without an editor and cost nothing but the cached data.
 */
import * as l10n from '@vscode/l10n';
import { formatTime } from './values';
import type { SbatchDirective, SbatchScript, Span } from './types';
import type { Partition, Reservation, UserInfo } from '../model';

/** One system's facts at one moment. `userInfo` is absent when the API refused it. */
export interface LiveSnapshot {
  partitions: Partition[];
  reservations: Reservation[];
  userInfo?: UserInfo;
  fetchedAt: number;
}

/** Stable codes of the live checks (the parser's codes cover the offline ones). */
export type LiveProblemCode =
  | 'unknown-partition'
  | 'partition-unavailable'
  | 'time-above-max'
  | 'unknown-reservation'
  | 'reservation-inactive'
  | 'unknown-account'
  | 'maintenance-overlap';

/** What a quick fix would write: one replacement per choice, the preferred one first. */
export interface FixData {
  /** The span replaced (a directive's value). */
  span: Span;
  /** Replacement texts with a title each. */
  choices: { title: string; text: string }[];
}

export interface LiveProblem {
  code: LiveProblemCode;
  severity: 'error' | 'warning';
  span: Span;
  message: string;
  fix?: FixData;
}

/** Reservations that mean "the machine is down": a MAINT flag, or maint in the name (v2 has no flags). */
export function isMaintenance(r: Reservation): boolean {
  return (r.flags ?? []).some((f) => f.toUpperCase() === 'MAINT') || /maint/i.test(r.name);
}

/** A moment as `2026-11-25 06:00 UTC`: exact, and the same for every user of a test. */
export function formatWhen(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** All live problems of a script on one system at `now`. */
export function liveChecks(script: SbatchScript, live: LiveSnapshot, system: string, now: Date): LiveProblem[] {
  const out: LiveProblem[] = [];
  const partitionDirective = script.last('partition');
  const chosen = checkPartitions(partitionDirective, live.partitions, system, out);
  const time = script.last('time');
  const seconds = time?.typed?.kind === 'time' ? time.typed.seconds : undefined;
  if (time?.valueSpan && seconds !== undefined) {
    // With a list of partitions Slurm takes one the job fits in: refuse only when it fits none.
    const limited = chosen.filter((p) => p.maxTimeSeconds !== undefined);
    const largest = limited.sort((a, b) => b.maxTimeSeconds! - a.maxTimeSeconds!)[0];
    if (largest && limited.length === chosen.length && seconds > largest.maxTimeSeconds!) {
      const max = formatTime(largest.maxTimeSeconds!);
      out.push({
        code: 'time-above-max',
        severity: 'error',
        span: time.valueSpan,
        message: l10n.t('Time limit {0} is above the maximum of partition \'{1}\' ({2}): sbatch refuses the job.', formatTime(seconds), largest.name, max),
        fix: { span: time.valueSpan, choices: [{ title: l10n.t('Set the time limit to {0} (the maximum of \'{1}\')', max, largest.name), text: max }] },
      });
    }
  }
  const reservationDirective = script.last('reservation');
  checkReservations(reservationDirective, live.reservations, system, now, out);
  checkAccount(script.last('account'), live, system, out);
  if (time?.valueSpan && seconds !== undefined) {
    // The fix that ends before maintenance must also fit the partition: never above its maximum.
    const limits = chosen.map((p) => p.maxTimeSeconds).filter((m): m is number => m !== undefined && Number.isFinite(m));
    const partitionMax = limits.length === chosen.length && limits.length > 0 ? Math.max(...limits) : undefined;
    checkMaintenance(time.valueSpan, seconds, reservationDirective, live.reservations, now, out, partitionMax);
  }
  return out;
}

/** Flags unknown partitions; returns the partitions the job may run in (the default when none given). */
function checkPartitions(d: SbatchDirective | undefined, partitions: Partition[], system: string, out: LiveProblem[]): Partition[] {
  if (!d) return partitions.filter((p) => p.isDefault);
  if (d.typed?.kind !== 'list' || partitions.length === 0) return [];
  const ordered = [...partitions].sort((a, b) => Number(b.isDefault === true) - Number(a.isDefault === true));
  const chosen: Partition[] = [];
  for (const item of d.typed.items) {
    const p = partitions.find((x) => x.name === item.text);
    if (p) {
      chosen.push(p);
      if (p.state && !/^UP\b/.test(p.state)) {
        out.push({ code: 'partition-unavailable', severity: 'warning', span: item.span, message: l10n.t('Partition \'{0}\' is {1}: the job will wait until it is UP.', p.name, p.state) });
      }
      continue;
    }
    out.push({
      code: 'unknown-partition',
      severity: 'error',
      span: item.span,
      message: l10n.t('Partition \'{0}\' does not exist on {1} (it has {2}).', item.text, system, ordered.map((x) => x.name).join(', ')),
      fix: {
        span: item.span,
        choices: ordered.map((x) => ({ title: l10n.t('Use partition \'{0}\'{1}', x.name, x.isDefault ? ' (default)' : ''), text: x.name })),
      },
    });
  }
  return chosen;
}

function checkReservations(d: SbatchDirective | undefined, reservations: Reservation[], system: string, now: Date, out: LiveProblem[]): void {
  if (d?.typed?.kind !== 'list') return;
  for (const item of d.typed.items) {
    const r = reservations.find((x) => x.name === item.text);
    if (!r) {
      const usable = reservations.filter((x) => x.end > now);
      out.push({
        code: 'unknown-reservation',
        severity: 'error',
        span: item.span,
        message: usable.length
          ? l10n.t('Reservation \'{0}\' does not exist on {1} (it has {2}).', item.text, system, usable.map((x) => x.name).join(', '))
          : l10n.t('Reservation \'{0}\' does not exist on {1} (it has none).', item.text, system),
        fix: usable.length ? { span: item.span, choices: usable.map((x) => ({ title: l10n.t('Use reservation \'{0}\'', x.name), text: x.name })) } : undefined,
      });
    } else if (r.end <= now) {
      out.push({ code: 'reservation-inactive', severity: 'error', span: item.span, message: l10n.t('Reservation \'{0}\' is over: it ended {1}.', r.name, formatWhen(r.end)) });
    } else if (r.start > now) {
      out.push({
        code: 'reservation-inactive',
        severity: 'warning',
        span: item.span,
        message: l10n.t('Reservation \'{0}\' has not started: the job waits until {1}.', r.name, formatWhen(r.start)),
      });
    }
  }
}

function checkAccount(d: SbatchDirective | undefined, live: LiveSnapshot, system: string, out: LiveProblem[]): void {
  const accounts = live.userInfo?.accounts;
  if (d?.typed?.kind !== 'list' || !accounts?.length) return;
  const item = d.typed.items[0];
  if (accounts.some((a) => a.name === item.text)) return;
  const ordered = [...accounts].sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  out.push({
    code: 'unknown-account',
    severity: 'error',
    span: item.span,
    message: l10n.t('You ({0}) cannot charge account \'{1}\' on {2}: your accounts are {3}.', live.userInfo?.user.name ?? 'this user', item.text, system, ordered.map((a) => a.name).join(', ')),
    fix: { span: item.span, choices: ordered.map((a) => ({ title: l10n.t('Use account \'{0}\'{1}', a.name, a.isDefault ? ' (default)' : ''), text: a.name })) },
  });
}

/**
 * A job started now runs until now + its limit; a maintenance window starting before that blocks
 * it (Slurm keeps it pending until after the window). The fix shortens the limit to end a minute
 * before the window starts.
 */
function checkMaintenance(span: Span, seconds: number, reservation: SbatchDirective | undefined, reservations: Reservation[], now: Date, out: LiveProblem[], partitionMax?: number): void {
  const using = reservation?.typed?.kind === 'list' ? reservation.typed.items.map((i) => i.text) : [];
  const ends = now.getTime() + seconds * 1000;
  const next = reservations
    .filter((r) => isMaintenance(r) && !using.includes(r.name) && r.start > now && r.start.getTime() < ends)
    .sort((a, b) => a.start.getTime() - b.start.getTime())[0];
  if (!next) return;
  const beforeMaint = Math.floor((next.start.getTime() - now.getTime()) / 60_000) - 1;
  const fitMinutes = partitionMax !== undefined ? Math.min(beforeMaint, Math.floor(partitionMax / 60)) : beforeMaint;
  const fit = fitMinutes > 0 ? formatTime(fitMinutes * 60) : undefined;
  out.push({
    code: 'maintenance-overlap',
    severity: 'warning',
    span,
    message: l10n.t('Time limit {0} runs into maintenance \'{1}\' ({2} to {3}): the job cannot start until the window is over unless it ends before it.', formatTime(seconds), next.name, formatWhen(next.start), formatWhen(next.end)),
    fix: fit ? { span, choices: [{ title: l10n.t('Set the time limit to {0} (end before maintenance \'{1}\'{2})', fit, next.name, fitMinutes < beforeMaint ? ", within the partition's maximum" : ''), text: fit }] } : undefined,
  });
}
