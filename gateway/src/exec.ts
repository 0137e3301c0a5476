/**
 * Runs a program as a unix user, the way the real server runs commands over SSH as the user:
 * argv only (never a shell string), an optional `timeout N` wrapper (exit 124 = timed out), and a
 * cap on the captured output.
 */
import { spawn } from 'node:child_process';
import type { UnixUser } from './users';

export interface RunOptions {
  cwd?: string;
  /** Wraps the command in coreutils `timeout <seconds>`; exit status 124 means it ran too long. */
  timeoutSeconds?: number;
  /** Kill the process once stdout or stderr reaches this many bytes (`outputExceeded` is then true). */
  maxOutputBytes?: number;
  stdin?: string | Buffer;
  /** Extra environment on top of the user's login basics (HOME, USER, LOGNAME, PATH, SHELL). */
  env?: Record<string, string>;
  /** Keep stdout as Buffer (binary downloads). */
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  outputExceeded: boolean;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The argv prefix that switches to `user` (with its supplementary groups) when we are root. */
export function asUserPrefix(user: UnixUser): string[] {
  if (!isRoot || user.uid === 0) return [];
  return ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', '--'];
}

export function userEnv(user: UnixUser, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    SHELL: '/bin/bash',
    PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

export function runAs(user: UnixUser, argv: string[], opts: RunOptions = {}): Promise<RunResult> {
  const wrapped = opts.timeoutSeconds ? ['timeout', String(opts.timeoutSeconds), ...argv] : argv;
  const full = [...asUserPrefix(user), ...wrapped];
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), {
      cwd: opts.cwd ?? user.home,
      env: userEnv(user, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      signal: opts.signal,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    let outputExceeded = false;
    const cap = opts.maxOutputBytes ?? Number.POSITIVE_INFINITY;
    child.stdout.on('data', (b: Buffer) => {
      outLen += b.length;
      if (outLen >= cap) { outputExceeded = true; child.kill('SIGKILL'); return; }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      errLen += b.length;
      if (errLen >= cap) { outputExceeded = true; child.kill('SIGKILL'); return; }
      err.push(b);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ exitCode: code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), outputExceeded });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}
