/**
 * The built-in scheduler's persistent state: the job id counter, the job history and the
 * reservations, kept as one JSON file in the state directory. Writes are coalesced (a burst of
 * state changes becomes one write) and atomic (temp file + rename), so a crash leaves either the
 * old or the new file, never half of one.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UnixUser } from '../users';

export type LocalJobState = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMEOUT' | 'NODE_FAIL';

/** One job as the local scheduler keeps it (times in epoch milliseconds). */
export interface LocalJob {
  id: number;
  user: UnixUser;
  name: string;
  partition: string;
  account: string;
  reservation: string | null;
  constraints: string | null;
  /** Where sbatch was run from (SLURM_SUBMIT_DIR). */
  submitDir: string;
  workingDirectory: string;
  /** Expanded, absolute paths. */
  stdout: string;
  stderr: string;
  stdin: string;
  /** spec.env, exported into the job on top of the user's basics. */
  env: Record<string, string>;
  /** seconds; null = unlimited */
  timeLimit: number | null;
  /** Job ids that must have COMPLETED first (`afterok`; the only form in state written before `dependency`). */
  afterOk: number[];
  /** `--dependency` as sbatch takes it: `after*` items joined by `,` (all) or `?` (any), and/or `singleton`. */
  dependency?: LocalDependency;
  state: LocalJobState;
  reason: string;
  exitCode: number | null;
  signal: number | null;
  submitTime: number;
  startTime: number | null;
  endTime: number | null;
  killRequestUser: string | null;
  killRequestUid: number | null;
  /** An array task: the array's id (its first task's), this task's index, and `%N` (tasks at once). */
  array?: { jobId: number; taskId: number; count: number; min: number; max: number; limit: number | null };
  /** Process group of the running job and its start time in clock ticks (guards against pid reuse). */
  pid: number | null;
  pidStart: string | null;
}

export interface LocalDependency {
  mode: 'all' | 'any';
  items: { type: 'after' | 'afterok' | 'afternotok' | 'afterany'; id: number }[];
  singleton: boolean;
}

export interface LocalReservation {
  name: string;
  startTime: number;
  endTime: number;
  users: string[];
  accounts: string[];
  flags: string[];
}

export interface LocalStateData {
  version: 1;
  lastJobId: number;
  jobs: LocalJob[];
  reservations: LocalReservation[] | null;
}

export class LocalStateStore {
  private readonly file: string;
  private readonly scriptsDir: string;
  private dirty = false;
  private writing: Promise<void> | null = null;
  private snapshot: () => LocalStateData = () => ({ version: 1, lastJobId: 0, jobs: [], reservations: null });

  constructor(stateDir: string) {
    this.file = join(stateDir, 'local-scheduler.json');
    this.scriptsDir = join(stateDir, 'local-scripts');
  }

  /** Reads the saved state (an empty one on first start) and remembers how to snapshot the live one. */
  async load(snapshot: () => LocalStateData): Promise<LocalStateData> {
    this.snapshot = snapshot;
    await mkdir(this.scriptsDir, { recursive: true, mode: 0o700 });
    try {
      const data = JSON.parse(await readFile(this.file, 'utf8')) as LocalStateData;
      if (data.version === 1 && Array.isArray(data.jobs)) return data;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    return { version: 1, lastJobId: 0, jobs: [], reservations: null };
  }

  /** Schedules a write of the current state; resolves once a write that includes it finished. */
  save(): Promise<void> {
    this.dirty = true;
    this.writing ??= this.writeLoop();
    return this.writing;
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  scriptPath(jobId: number): string {
    return join(this.scriptsDir, `${jobId}.sh`);
  }

  async saveScript(jobId: number, script: string): Promise<void> {
    await writeFile(this.scriptPath(jobId), script, { mode: 0o600 });
  }

  async removeScript(jobId: number): Promise<void> {
    await rm(this.scriptPath(jobId), { force: true });
  }

  /** The ids of the stored scripts. */
  async scriptKeys(): Promise<number[]> {
    return (await readdir(this.scriptsDir)).map((f) => /^(\d+)\.sh$/.exec(f)).filter((m) => m !== null).map((m) => Number(m[1]));
  }

  async readScript(jobId: number): Promise<string | null> {
    try {
      return await readFile(this.scriptPath(jobId), 'utf8');
    } catch {
      return null;
    }
  }

  private async writeLoop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const tmp = `${this.file}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
        await rename(tmp, this.file);
      }
    } catch (e) {
      console.error(`[local-scheduler] could not save state: ${(e as Error).message}`);
    } finally {
      this.writing = null;
    }
  }
}
