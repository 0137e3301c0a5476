/**
 * Runs a program as a unix user, the way the real server runs commands over SSH as the user:
 * argv only (never a shell string), an optional `timeout N` wrapper (exit 124 = timed out), and a
 * cap on the captured output.
 *
 * The trust boundary of the gateway (SECURITY.md): everything it starts runs through `launch()`.
 * What runs as root is named by absolute path and gets a fixed, minimal environment: the
 * privilege-dropping `setpriv`, then `env -i`, which sets the user's environment (their login
 * basics plus whatever the request asked for) only after the drop, inside the user's own
 * process. The program the user's process runs is resolved to an absolute path by the gateway
 * over a fixed search path, so a `PATH` from a request changes what the job's script finds, never
 * what the gateway starts.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
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

/** Where the gateway looks for the programs it starts: root-owned system folders only. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The whole environment of every process the gateway starts before a privilege drop. */
const ROOT_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: SYSTEM_PATH, LANG: 'C.UTF-8' });

/** An environment variable name a shell can export: anything else is refused before it reaches a process. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const resolved = new Map<string, string>();

/**
 * The absolute path of `program` on SYSTEM_PATH (an absolute path is kept as it is). Throws
 * ENOENT like spawn does when there is none, so callers' error handling stays the same.
 */
export function systemProgram(program: string): string {
  if (program.startsWith('/') && !program.includes('=')) return program;
  if (program.includes('/') || program.includes('=') || program === '') throw Object.assign(new Error(`spawn ${program} ENOENT`), { code: 'ENOENT' });
  const hit = resolved.get(program);
  if (hit) return hit;
  for (const dir of SYSTEM_PATH.split(':')) {
    const candidate = `${dir}/${program}`;
    try {
      accessSync(candidate, constants.X_OK);
      resolved.set(program, candidate);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  throw Object.assign(new Error(`spawn ${program} ENOENT`), { code: 'ENOENT', path: program });
}

/**
 * Tools name themselves by argv[0] in their messages, and the gateway runs them by absolute path:
 * `/usr/bin/find: …` is turned back into `find: …`, as the real server's tools (run by name over
 * SSH) say it. Clients classify errors by these texts.
 */
export function asNamedBy(program: string, text: string): string {
  if (program.includes('/')) return text;
  const abs = resolved.get(program);
  return abs && text.includes(abs) ? text.split(`${abs}:`).join(`${program}:`) : text;
}

export function userEnv(user: UnixUser, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    SHELL: '/bin/bash',
    PATH: [...(user.path ?? []), '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin'].join(':'),
    LANG: 'C.UTF-8',
  };
  for (const [k, v] of Object.entries(extra)) {
    if (!ENV_NAME.test(k)) throw new Error(`Invalid environment variable name: ${JSON.stringify(k)}`);
    if (v.includes('\0')) throw new Error(`Invalid value of environment variable ${k}: it contains a NUL byte`);
    env[k] = v;
  }
  return env;
}

export interface LaunchOptions {
  env?: Record<string, string>;
  timeoutSeconds?: number;
}

/**
 * The argv that runs `argv` as `user`: `[setpriv … --] env -i <user env> [timeout N] /abs/prog …`.
 * Every element before the program is an absolute path chosen here; the user's variables are
 * arguments of `env`, which sets them after setpriv dropped to the user.
 */
export function userArgv(user: UnixUser, argv: string[], opts: LaunchOptions = {}): string[] {
  if (argv.length === 0) throw new Error('nothing to run');
  const program = [systemProgram(argv[0]), ...argv.slice(1)];
  const timed = opts.timeoutSeconds ? [systemProgram('timeout'), String(opts.timeoutSeconds), ...program] : program;
  const env = Object.entries(userEnv(user, opts.env)).map(([k, v]) => `${k}=${v}`);
  const withEnv = [systemProgram('env'), '-i', ...env, ...timed];
  if (!isRoot || user.uid === 0) return withEnv;
  return [systemProgram('setpriv'), `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', '--', ...withEnv];
}

/** Starts `argv` as `user` (see `userArgv`); the spawned process itself gets only ROOT_ENV. */
export function launch(user: UnixUser, argv: string[], opts: LaunchOptions & Omit<SpawnOptions, 'env'> = {}): ChildProcess {
  const { env, timeoutSeconds, ...spawnOpts } = opts;
  const full = userArgv(user, argv, { env, timeoutSeconds });
  return spawn(full[0], full.slice(1), { ...spawnOpts, env: { ...ROOT_ENV } });
}

/** `launch` with stdin, stdout and stderr as pipes. */
export function launchPiped(user: UnixUser, argv: string[], opts: LaunchOptions & Omit<SpawnOptions, 'env' | 'stdio'> = {}): ChildProcessWithoutNullStreams {
  const { env, timeoutSeconds, ...spawnOpts } = opts;
  const full = userArgv(user, argv, { env, timeoutSeconds });
  return spawn(full[0], full.slice(1), { ...spawnOpts, stdio: 'pipe', env: { ...ROOT_ENV } });
}

/** Signals every process of a process group (a command started by `launchPiped` leads its own). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to signal.
  }
}

/** Seconds the gateway waits past a command's own `timeout` before it ends the command itself. */
const DEADLINE_GRACE_SECONDS = 5;

/**
 * Runs `argv` as `user` and collects its output. The command leads a process group of its own
 * (`setpriv`, `env` and `timeout` exec one another, and `timeout` keeps the tool in its group), so
 * a cap or a deadline ends the tool and whatever it started, not only the process the gateway
 * spawned: an orphaned `find` would otherwise run on, unbounded, with the pipe open. Once a cap or
 * the deadline has fired, the pipes are closed here too, so the answer never waits on a process
 * that left the group.
 */
export function runAs(user: UnixUser, argv: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = launchPiped(user, argv, { env: opts.env, timeoutSeconds: opts.timeoutSeconds, cwd: opts.cwd ?? user.home, detached: true });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    let outputExceeded = false;
    let timedOut = false;
    let ended = false;
    const cap = opts.maxOutputBytes ?? Number.POSITIVE_INFINITY;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const deadline = opts.timeoutSeconds
      ? setTimeout(() => { timedOut = true; end(); }, (opts.timeoutSeconds + DEADLINE_GRACE_SECONDS) * 1000)
      : undefined;
    const onAbort = (): void => end();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) end();
    child.stdout.on('data', (b: Buffer) => {
      if (ended) return;
      outLen += b.length;
      if (outLen >= cap) { outputExceeded = true; end(); return; }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (ended) return;
      errLen += b.length;
      if (errLen >= cap) { outputExceeded = true; end(); return; }
      err.push(b);
    });
    child.on('error', (e) => {
      clearTimeout(deadline);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
      // The command itself is gone; what it started in its group goes with it.
      if (child.pid !== undefined && !ended) killGroup(child.pid, 'SIGKILL');
      const stderr = Buffer.concat(err);
      const text = stderr.toString('utf8');
      const named = asNamedBy(argv[0], text);
      // Past the deadline the gateway ended it: reported as `timeout` reports a command it ended.
      resolve({ exitCode: timedOut ? 124 : code, signal: timedOut ? null : signal, stdout: Buffer.concat(out), stderr: named === text ? stderr : Buffer.from(named), outputExceeded });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Runs a root-side helper (getent, id, sinfo) by absolute path with the fixed environment. */
export function systemSpawn(program: string, args: string[], opts: Omit<SpawnOptions, 'env'> = {}): ChildProcess {
  return spawn(systemProgram(program), args, { ...opts, env: { ...ROOT_ENV } });
}

/** The fixed environment for execFile-style helpers that cannot use systemSpawn. */
export function systemEnv(): Record<string, string> {
  return { ...ROOT_ENV };
}
