/**
 * Runs one Slurm command as a user (argv only, like the real server runs it over SSH as the
 * user) and turns failures into the errors the real v2 server reports.
 */
import { runAs, type RunResult } from '../exec';
import type { UnixUser } from '../users';
import { SchedulerError } from './types';

/** The gateway's own identity, for operator-only commands (reservations). */
export const ROOT_USER: UnixUser = {
  name: 'root', uid: 0, gid: 0, group: 'root', home: '/root', groups: [{ name: 'root', gid: 0 }],
};

/** Field separator for parsable output: a control character no job name or path contains in practice. */
export const SEP = '\x1f';

export interface SlurmOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface SlurmRunOptions {
  stdin?: string;
  timeoutSeconds?: number;
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Runs `argv` as `user`. Timestamps are epoch seconds (`SLURM_TIME_FORMAT=%s`), so nothing
 * depends on the gateway's time zone. Never throws for a non-zero exit: callers decide.
 */
export async function slurmRun(user: UnixUser, argv: string[], opts: SlurmRunOptions = {}): Promise<SlurmOutput> {
  let r: RunResult;
  try {
    r = await runAs(user, argv, {
      stdin: opts.stdin,
      timeoutSeconds: opts.timeoutSeconds ?? 30,
      env: { SLURM_TIME_FORMAT: '%s', ...opts.env },
      cwd: opts.cwd,
      maxOutputBytes: 64 * 1024 * 1024,
    });
  } catch (e) {
    throw new SchedulerError(`Error executing Slurm command. ${(e as Error).message}`, 500);
  }
  return {
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
    exitCode: r.exitCode ?? (r.signal ? 128 : 1),
  };
}

/** The real server's wording for a Slurm command that failed. */
export function unexpected(out: SlurmOutput, status = 500): SchedulerError {
  const stderr = out.stderr.trim();
  return new SchedulerError(`Unexpected Slurm command response. exit_status:${out.exitCode} std_err:${stderr}`, status, stderr);
}

/** Runs and requires exit status 0. */
export async function slurmOk(user: UnixUser, argv: string[], opts: SlurmRunOptions = {}): Promise<string> {
  const out = await slurmRun(user, argv, opts);
  if (out.exitCode !== 0) throw unexpected(out);
  return out.stdout;
}

/** Splits `scontrol show ... -o` lines into key/value maps (values may contain spaces only in known keys, which we do not use). */
export function parseKeyValueLines(text: string): Map<string, string>[] {
  const out: Map<string, string>[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('=')) continue;
    const m = new Map<string, string>();
    for (const tok of line.trim().split(/\s+/)) {
      const eq = tok.indexOf('=');
      if (eq > 0) m.set(tok.slice(0, eq), tok.slice(eq + 1));
    }
    out.push(m);
  }
  return out;
}

/** `(null)`, `N/A`, `None` and empty become null. */
export function nullish(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim();
  return t === '' || t === '(null)' || t === 'N/A' || t === 'n/a' ? null : t;
}

/** Integer or null (also for `Unknown`, `N/A`, `UNLIMITED`). */
export function intOrNull(v: string | undefined): number | null {
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return null;
  return Number(v.trim());
}

/** Slurm durations (`D-HH:MM:SS`, `HH:MM:SS`, `MM:SS`, `MM`) in seconds; null for UNLIMITED/INFINITE and the like. */
export function durationSeconds(v: string | undefined): number | null {
  if (!v) return null;
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(v.trim());
  if (!m) return null;
  const days = Number(m[1] ?? 0);
  const parts = [m[2], m[3], m[4]].filter((p): p is string => p !== undefined).map(Number);
  let secs: number;
  if (parts.length === 3) secs = parts[0] * 3600 + parts[1] * 60 + parts[2];
  else if (parts.length === 2) secs = m[1] !== undefined ? parts[0] * 3600 + parts[1] * 60 : parts[0] * 60 + parts[1];
  else secs = m[1] !== undefined ? parts[0] * 3600 : parts[0] * 60;
  return days * 86400 + secs;
}
