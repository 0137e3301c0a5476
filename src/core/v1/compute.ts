/**
 * v1 compute service (§2.5): every call creates a task that is polled to its end. Avoids
 * `GET /compute/jobs/{id}` (its task never finishes, Q3) in favour of `?jobs=<id>`.
 */
import { posix } from 'node:path';
import type { AccountingQuery, CallOptions, JobListOptions } from '../api';
import { FirecrestError, NotFoundError, NotSupportedError } from '../errors';
import type { ComputeNode, Job, JobSubmission, Partition, Reservation } from '../model';
import type { QueryValue } from '../http/apiHttp';
import { pickJob } from '../jobArrays';
import { checkDependency, withDirectives } from '../jobScript';
import { parseSbatchScript } from '../sbatch/parser';
import { JobFacts, knownPath } from './jobFacts';
import { Tasks, type TaskWaitOptions } from './tasks';
import { acctJob, node, partition, queueJob, reservation } from './translate';
import type { Fields, V1Http } from './v1Http';

/** sacct rows per page: each page is a task of its own (a few polls), so a month of a busy user's jobs must not take dozens. */
const PAGE = 1000;

function records(data: unknown): Record<string, unknown>[] {
  // QueueJob lists are keyed by position; sacct's empty result is `{}` (Q7).
  const values = Array.isArray(data) ? data : data && typeof data === 'object' ? Object.values(data) : [];
  return values.filter((v): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v));
}

/** Whether a submission asks for what `jobs/path` cannot carry (anything but its name). */
export function hasOverrides(job: JobSubmission): boolean {
  return directives({ ...job, name: undefined }).length > 0;
}

/** `--opt=value` lines for what v1's submit has no field for (inline scripts only). */
function directives(job: JobSubmission): string[] {
  const d: [string, string | undefined][] = [
    ['job-name', job.name], ['partition', job.partition], ['reservation', job.reservation], ['output', job.stdoutPath],
    ['error', job.stderrPath], ['input', job.stdinPath], ['constraint', job.constraints],
    ['dependency', job.dependency === undefined ? undefined : checkDependency(job.dependency)],
  ];
  return d.filter(([, v]) => v).map(([k, v]) => `#SBATCH --${k}=${v}`);
}

/**
 * v1 runs an uploaded script with `--chdir` set to its upload directory, which a `#SBATCH --chdir`
 * cannot override: a `cd` to the working directory is put after the leading comment and
 * directive block (so every `#SBATCH` line is still read), before the first command.
 */
export function withWorkingDirectory(script: string, dir: string): string {
  const lines = script.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i].trim() === '' || lines[i].trimStart().startsWith('#'))) i++;
  const quoted = `'${dir.replace(/'/g, `'\\''`)}'`;
  lines.splice(i, 0, ...outputDirectives(lines.slice(0, i), dir), `cd -- ${quoted} || exit 1`);
  return lines.join('\n');
}

/**
 * Where Slurm would write the job's files if it ran from `dir`: v1 submits with `--chdir` set to
 * its upload directory (`~/firecrest/<task>`), so a relative output, error or input path, and the
 * default `slurm-%j.out`, would land there instead. Absolute paths are added after the script's
 * own directives (the last one wins): the files go where the user works, as on API v2.
 */
export function outputDirectives(block: string[], dir: string): string[] {
  const script = parseSbatchScript(block.join('\n'));
  const paths = { output: script.last('output')?.value, error: script.last('error')?.value, input: script.last('input')?.value };
  const array = script.last('array') !== undefined;
  // `%` in the folder is literal (`%%`); a path with whitespace is quoted, as sbatch reads directives.
  const base = (dir.replace(/\/+$/, '') || '/').replace(/%/g, '%%');
  const line = (k: string, p: string) => {
    const path = posix.join(base, p);
    return `#SBATCH --${k}=${/\s/.test(path) && !path.includes('"') ? `"${path}"` : path}`;
  };
  const out: string[] = [];
  // Slurm's default: both streams in one file of the submission directory.
  const output = paths.output ?? (array ? 'slurm-%A_%a.out' : 'slurm-%j.out');
  if (!output.startsWith('/')) out.push(line('output', output));
  for (const k of ['error', 'input'] as const) {
    const p = paths[k];
    if (p && !p.startsWith('/')) out.push(line(k, p));
  }
  return out;
}

/** Compute routes of one connection. */
/**
 * sacct's window bounds as v1 takes them. Upstream 1.16.6 drops a time of day
 * (`YYYY-MM-DDTHH:MM:SS` is "wrongly encoded" and the window silently starts at midnight), and
 * reads a date in the server's time zone, which the client does not know: so whole days are sent,
 * a day wider on each side, and the rows are cut to the window here (inWindow).
 */
function dayBefore(epochS?: number): string | undefined {
  return epochS === undefined ? undefined : new Date((epochS - 86400) * 1000).toISOString().slice(0, 10);
}

function dayAfter(epochS?: number): string | undefined {
  return epochS === undefined ? undefined : new Date((epochS + 86400) * 1000).toISOString().slice(0, 10);
}

/** A job sacct would list for the window [start, end]: not ended before it began, not submitted after it ended. */
function inWindow(j: Job, startS?: number, endS?: number): boolean {
  if (startS !== undefined && j.endTime !== undefined && j.endTime > 0 && j.endTime < startS) return false;
  if (endS !== undefined && j.submitTime !== undefined && j.submitTime > endS) return false;
  return true;
}

export class ComputeRoutes {
  private readonly facts = new JobFacts();

  constructor(private readonly v1: V1Http, private readonly tasks: Tasks) {}

  private async task(method: 'GET' | 'POST' | 'DELETE', route: string, machine: string, o: { query?: Record<string, QueryValue>; fields?: Fields; file?: { name: string; data: Uint8Array }; params?: Record<string, string>; expect: number; wait?: TaskWaitOptions }): Promise<unknown> {
    const res = await this.v1.send(method, route, { machine, query: o.query, fields: o.fields, file: o.file, params: o.params, expect: [o.expect], call: o.wait });
    return (await this.tasks.run(res, `${method} ${route}`, o.wait)).data;
  }

  /**
   * Inline scripts go through `jobs/upload` as `script.batch`, with the submission's overrides as
   * `#SBATCH` lines; `scriptPath` through `jobs/path`, which has no way to carry overrides
   * (NotSupportedError then). An inline script `cd`s to `workingDirectory` (withWorkingDirectory);
   * a script by path runs in its own directory, as v1 decides.
   */
  async submit(machine: string, job: JobSubmission, o: CallOptions = {}): Promise<string> {
    const fields: Fields = { account: job.account, env: job.env && Object.keys(job.env).length ? JSON.stringify(job.env) : undefined };
    let data: unknown;
    if (job.script !== undefined) {
      const script = withWorkingDirectory(withDirectives(job.script, directives(job)), job.workingDirectory);
      data = await this.task('POST', '/compute/jobs/upload', machine, { fields, file: { name: 'script.batch', data: new TextEncoder().encode(script) }, expect: 201, wait: o });
    } else if (job.scriptPath) {
      const extra = directives({ ...job, name: undefined });
      if (extra.length) throw new NotSupportedError(`API v1 cannot override ${extra.map((l) => l.split('=')[0].slice(8)).join(', ')} for a script already on the cluster; put them in the script`);
      data = await this.task('POST', '/compute/jobs/path', machine, { fields: { ...fields, targetPath: job.scriptPath }, expect: 201, wait: o });
    } else {
      throw new NotSupportedError('A job needs a script or a script path');
    }
    const done = records([data])[0];
    const id = done?.jobid;
    if (typeof id !== 'string' || !id) throw new FirecrestError(`The job was not submitted: ${JSON.stringify(data)}`);
    const workingDirectory = job.script !== undefined ? job.workingDirectory : job.scriptPath && posix.dirname(job.scriptPath);
    // What the submission fixes: the overrides, else the script's own directives. sbatch names a
    // job after its script file unless the script says otherwise.
    const fixed = job.script !== undefined ? parseSbatchScript(job.script) : undefined;
    const name = job.name ?? (fixed ? fixed.last('job-name')?.value ?? 'script.batch' : undefined);
    const partition = job.partition ?? fixed?.last('partition')?.value;
    const account = job.account ?? fixed?.last('account')?.value;
    this.facts.remember(machine, id, { workingDirectory, name, partition, account, stdoutPath: knownPath(done.job_file_out), stderrPath: knownPath(done.job_file_err) });
    return id;
  }

  /** The queue; with `allUsers` every user's jobs (`userJobs=false`). */
  async jobs(machine: string, o: JobListOptions & { jobIds?: string[] } = {}): Promise<Job[]> {
    const query = { jobs: o.jobIds?.join(','), userJobs: o.allUsers ? 'false' : undefined };
    const jobs = records(await this.task('GET', '/compute/jobs', machine, { query, expect: 200, wait: o })).map((r) => this.facts.complete(machine, queueJob(r)));
    return jobs.filter((j) => (!o.name || j.name === o.name) && (!o.account || j.account === undefined || j.account === o.account));
  }

  /** One job: the queue first, then accounting for a job that already left it. */
  async job(machine: string, jobId: string, o: CallOptions = {}): Promise<Job> {
    const queue = await this.jobs(machine, { ...o, jobIds: [jobId] });
    const queued = pickJob(jobId, queue);
    if (queued && queued.array?.jobId !== jobId) return queued;
    // Not queued, or an array's id, which stands for all its tasks: the queue has those still to
    // end, sacct those that ended.
    const inQueue = new Set(queue.map((j) => j.id));
    const done = pickJob(jobId, [...queue, ...(await this.accounting(machine, { ...o, jobIds: [jobId] })).filter((j) => !inQueue.has(j.id))]);
    if (done) return done;
    throw new NotFoundError(`Job ${jobId} not found on ${machine}`, { route: 'GET /compute/jobs' });
  }

  async cancel(machine: string, jobId: string, o: CallOptions = {}): Promise<void> {
    await this.task('DELETE', '/compute/jobs/{id}', machine, { params: { id: jobId }, expect: 200, wait: o });
  }

  /** One task of an array, or its tasks not started yet: v1 takes `12_3` and `12_[4-9]` as scancel does. */
  async cancelTask(machine: string, task: Job, o: CallOptions = {}): Promise<void> {
    const a = task.array;
    if (!a || (a.taskId === undefined && a.pending === undefined)) throw new NotSupportedError(`${task.id} is not a task of an array`);
    if (task.isFinal) return;
    // (The server's id check takes no `%N` throttle.)
    await this.cancel(machine, a.taskId !== undefined ? `${a.jobId}_${a.taskId}` : `${a.jobId}_[${a.pending!.replace(/%\d+$/, '')}]`, o);
  }

  /** sacct through every page (`pageNumber` is 0-based; a page past the end fails the task, Q8). */
  async accounting(machine: string, q: AccountingQuery): Promise<Job[]> {
    // sacct refuses a start after its end (default end: now); such a window holds no job.
    const end = q.endTime ?? Date.now() / 1000;
    if (q.startTime !== undefined && q.startTime > end) return [];
    const out: Job[] = [];
    for (let page = 0; ; page++) {
      const query = { jobs: q.jobIds?.join(','), starttime: dayBefore(q.startTime), endtime: dayAfter(q.endTime), pageSize: PAGE, pageNumber: page };
      let rows: Record<string, unknown>[];
      try {
        rows = records(await this.task('GET', '/compute/acct', machine, { query, expect: 200, wait: q }));
      } catch (e) {
        // An empty result fails even page 0 with this text (Q8): it means "no more rows".
        if (e instanceof FirecrestError && /greater than total pages/.test(e.message)) break;
        throw e;
      }
      out.push(...rows.map((r) => this.facts.complete(machine, acctJob(r))));
      if (rows.length < PAGE) break;
    }
    return out.filter((j) => (!q.name || j.name === q.name) && inWindow(j, q.startTime, q.endTime));
  }

  /**
   * The newest `count` of the user's jobs that sacct lists since `startTime`, in sacct's order
   * (oldest first). sacct lists a window oldest first and v1 pages that list as it is, so the
   * newest jobs are on the last page, whose number only the server knows: one page of `count`
   * rows is asked first and, when the window holds no more, is the answer (one task). A fuller
   * window costs two more tasks: the page count (a page past the end fails with `total pages
   * (N)`, Q8; with one row a page, N is the number of rows) and the newest `count` rows as one page.
   */
  async newestAccounting(machine: string, startTime: number, count: number, o: CallOptions = {}): Promise<Job[]> {
    const starttime = dayBefore(startTime);
    const page = async (pageSize: number, pageNumber: number): Promise<Job[]> => {
      const data = await this.task('GET', '/compute/acct', machine, { query: { starttime, pageSize, pageNumber }, expect: 200, wait: o });
      return records(data).map((r) => this.facts.complete(machine, acctJob(r)));
    };
    let first: Job[];
    try {
      first = await page(count, 0);
    } catch (e) {
      if (e instanceof FirecrestError && /greater than total pages/.test(e.message)) return [];
      throw e;
    }
    if (first.length < count) return first.filter((j) => inWindow(j, startTime));
    let total: number | undefined;
    try {
      await page(1, 1_000_000_000);
    } catch (e) {
      const m = e instanceof FirecrestError ? /greater than total pages \((\d+)\)/.exec(e.message) : null;
      if (!m) throw e;
      total = Number(m[1]);
    }
    // No count (a server that pages differently): the first page is still jobs of the window.
    if (total === undefined || total <= count) return first.filter((j) => inWindow(j, startTime));
    // Pages of `total - count` rows: the second one is exactly the last `count` rows.
    const newest = total >= 2 * count ? await page(total - count, 1) : await page(total, 0);
    return newest.slice(-count).filter((j) => inWindow(j, startTime));
  }

  async nodes(machine: string, o?: CallOptions): Promise<ComputeNode[]> {
    return records(await this.task('GET', '/compute/nodes', machine, { expect: 200, wait: o })).map(node);
  }

  async partitions(machine: string, o?: CallOptions): Promise<Partition[]> {
    return records(await this.task('GET', '/compute/partitions', machine, { expect: 200, wait: o })).map(partition);
  }

  async reservations(machine: string, o?: CallOptions): Promise<Reservation[]> {
    return records(await this.task('GET', '/compute/reservations', machine, { expect: 200, wait: o })).map(reservation);
  }
}
