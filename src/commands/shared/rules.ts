/**
 * The v1 servers' own input rules (wire reference §2.1, §2.6.1, §2.8), as form validators: each
 * returns the problem in words, or undefined when the value is one the server accepts. No vscode
 * here, so the same rules check typed answers and arguments alike.
 */
import * as l10n from '@vscode/l10n';

/** Reservation, account and node type names of the reservations service. */
export const RESERVATION_NAME = /^[a-z_$][-a-z_$0-9]*$/;
/** `YYYY-MM-DDTHH:MM:SS`, server local time. */
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)$/;
/** Slurm time limits the transfer jobs accept: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`. */
const SLURM_TIME = /^(\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2})$/;
/** Characters every v1 service refuses in paths, names and ids. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[<>|;"'&\\()`\u0000-\u001f\u007f]/;

export function checkName(what: string, v: string, required = true): string | undefined {
  if (!v) return required ? l10n.t('The {0} is required.', what) : undefined;
  if (!RESERVATION_NAME.test(v)) return l10n.t('The {0} must start with a lower-case letter, _ or $ and contain only a-z, 0-9, -, _ and $.', what);
  return undefined;
}

export function checkNodeCount(v: string): string | undefined {
  return /^\d+$/.test(v) && Number(v) >= 1 ? undefined : l10n.t('A whole number of nodes, at least 1.');
}

/** Epoch ms of a local `YYYY-MM-DDTHH:MM:SS`, or undefined when it is not a real date and time. */
export function parseLocalTime(v: string): number | undefined {
  const m = TIME.exec(v);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const date = new Date(y, mo - 1, d, h, mi, s);
  const same = date.getFullYear() === y && date.getMonth() === mo - 1 && date.getDate() === d && date.getHours() === h && date.getMinutes() === mi && date.getSeconds() === s;
  return same ? date.getTime() : undefined;
}

/** The local time as the reservations service writes it. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function checkStart(v: string, now = Date.now()): string | undefined {
  const t = parseLocalTime(v);
  if (t === undefined) return l10n.t('Start time as YYYY-MM-DDTHH:MM:SS (the cluster\'s local time).');
  return t <= now ? l10n.t('The start time must be in the future.') : undefined;
}

export function checkEnd(v: string, start: string): string | undefined {
  const t = parseLocalTime(v);
  if (t === undefined) return l10n.t('End time as YYYY-MM-DDTHH:MM:SS (the cluster\'s local time).');
  const s = parseLocalTime(start);
  return s !== undefined && t <= s ? l10n.t('The end time must be after the start time.') : undefined;
}

export function checkAbsolutePath(v: string): string | undefined {
  if (!v.startsWith('/')) return l10n.t('An absolute path on the cluster.');
  if (FORBIDDEN.test(v)) return l10n.t('FirecREST v1 refuses paths with < > | ; " \' & \\ ( ), a backtick or control characters.');
  return undefined;
}

export function checkJobId(v: string): string | undefined {
  if (!v) return undefined;
  return /^\d+$/.test(v) ? undefined : l10n.t('A job id (digits), or nothing to start at once.');
}

export function checkTimeLimit(v: string): string | undefined {
  if (!v) return undefined;
  return SLURM_TIME.test(v) ? undefined : l10n.t('A Slurm time limit: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S (empty: 2 hours).');
}
