/**
 * Runs batch scripts for the built-in scheduler, the way slurmd does: the script is copied into a
 * per-job spool directory the user owns, and it runs as the user in its own process group with
 * stdout/stderr/stdin opened BY THE USER's process (so the files are created with the user's
 * ownership and permissions). Every path is passed as a positional argument, never spliced into
 * shell text.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { killGroup, launch } from '../exec';
import type { UnixUser } from '../users';

export interface JobExit {
  exitCode: number | null;
  /** Signal number that killed the job's shell, if any. */
  signal: number | null;
}

export interface RunningJob {
  pid: number;
  /** Process start time in clock ticks: tells our process apart from a later one with the same pid. */
  pidStart: string | null;
  /** Resolves when the batch shell exited; the rest of its process group has been killed by then. */
  exited: Promise<JobExit>;
}

export interface LaunchSpec {
  id: number;
  user: UnixUser;
  script: string;
  workingDirectory: string;
  stdout: string;
  stderr: string;
  stdin: string;
  env: Record<string, string>;
}

// Opens the job's files as the user, falls back to /tmp when the working directory is not usable
// (as slurmstepd does), then replaces itself with `bash <script>`.
const WRAPPER = [
  'exec >"$1" || exit 1',
  'if [ "$2" = "$1" ]; then exec 2>&1; else exec 2>"$2" || exit 1; fi',
  'exec <"$3" || exit 1',
  'cd -- "$4" 2>/dev/null || { printf "slurmstepd: error: couldn\'t chdir to \\`%s\': going to /tmp instead\\n" "$4" >&2; cd /tmp; }',
  'exec bash -- "$5"',
].join('\n');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const SPOOL_PREFIX = 'f7t-spool-';
const OWNER_FILE = '.owner';

/** Removes the spool roots whose gateway is gone (no owner file, or its pid now runs something else). */
export function sweepDeadSpools(dir = tmpdir()): string[] {
  const swept: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(SPOOL_PREFIX)) continue;
    const root = join(dir, name);
    let owner: string;
    try {
      owner = readFileSync(join(root, OWNER_FILE), 'utf8');
    } catch {
      // Written right after the root is made: a root without one is old (or being made this
      // instant by another gateway), so only roots older than a minute go.
      try {
        if (Date.now() - statSync(root).mtimeMs < 60_000) continue;
      } catch {
        continue;
      }
      owner = '';
    }
    const [pid, start] = owner.split(' ');
    const alive = pid !== undefined && /^\d+$/.test(pid) && !!start && procStart(Number(pid)) === start;
    if (alive) continue;
    rmSync(root, { recursive: true, force: true });
    swept.push(root);
  }
  return swept;
}

export class JobRunner {
  private spoolRoot: string | null = null;

  /**
   * Creates the spool root: traversable by every user, listable by none. Spool roots of gateways
   * that died without closing theirs (kill -9) are swept first; each root names its owner (pid and
   * process start time), so a live gateway's spool is never touched.
   */
  open(): void {
    sweepDeadSpools();
    this.spoolRoot = mkdtempSync(join(tmpdir(), SPOOL_PREFIX));
    chmodSync(this.spoolRoot, 0o711);
    writeFileSync(join(this.spoolRoot, OWNER_FILE), `${process.pid} ${procStart(process.pid) ?? ''}`, { mode: 0o600 });
  }

  close(): void {
    if (this.spoolRoot) rmSync(this.spoolRoot, { recursive: true, force: true });
    this.spoolRoot = null;
  }

  /** Kills the process group of a job left running by a previous gateway, if it is still that job. */
  reapOrphan(pid: number, pidStart: string | null): void {
    if (pidStart !== null && procStart(pid) === pidStart) killGroup(pid, 'SIGKILL');
  }

  start(spec: LaunchSpec, onWrapperError: (text: string) => void): RunningJob {
    if (!this.spoolRoot) throw new Error('job runner not opened');
    const dir = join(this.spoolRoot, `job${spec.id}`);
    const script = join(dir, 'slurm_script');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(script, spec.script, { mode: 0o700 });
    if (isRoot) {
      chownSync(dir, spec.user.uid, spec.user.gid);
      chownSync(script, spec.user.uid, spec.user.gid);
    }
    // The job's variables (a PATH of the user's included) are set by `env` after the drop.
    const argv = ['bash', '-c', WRAPPER, 'slurm_script', spec.stdout, spec.stderr, spec.stdin, spec.workingDirectory, script];
    let child: ChildProcess;
    try {
      child = launch(spec.user, argv, { cwd: '/', env: spec.env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      // A job restored from an older state file with a variable no shell can export.
      rmSync(dir, { recursive: true, force: true });
      onWrapperError((e as Error).message);
      return { pid: -1, pidStart: null, exited: Promise.resolve({ exitCode: 1, signal: null }) };
    }
    const pid = child.pid ?? -1;
    const pidStart = pid > 0 ? procStart(pid) : null;
    let errText = '';
    child.stderr?.on('data', (b: Buffer) => { if (errText.length < 4096) errText += b.toString(); });
    const exited = new Promise<JobExit>((resolve) => {
      let done = false;
      const finish = (res: JobExit): void => {
        if (done) return;
        done = true;
        if (pid > 0) killGroup(pid, 'SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        if (errText.trim()) onWrapperError(errText.trim());
        resolve(res);
      };
      child.once('error', (e) => { errText += e.message; finish({ exitCode: 1, signal: null }); });
      // 'close' rather than 'exit': by then the wrapper's own error text (if any) has been read.
      child.once('close', (code, signal) => {
        finish({ exitCode: code, signal: signal ? (constants.signals[signal] ?? null) : null });
      });
    });
    return { pid, pidStart, exited };
  }
}
