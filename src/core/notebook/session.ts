/**
 * A notebook kernel on a compute node, through FirecREST alone: a batch job runs the driver
 * (driver.ts) in a session folder of its own; requests go there as files (one upload each) and
 * replies come back as one append-only log of JSON lines, read by byte offset, each message taken
 * once and in order (by its sequence number). Nothing listens on a port.
 *
 * Polling: fast while a cell runs or the kernel starts (from 100 ms, growing to 1 s), then a slow
 * look at the job now and then (`idleCheckMs`) while nothing runs: an idle kernel costs no
 * request beyond that heartbeat. What the driver writes is untrusted: each line is parsed as JSON
 * within bounds and checked field by field; anything else is dropped.
 */
import { randomBytes } from 'node:crypto';
import type { FirecrestApi } from '../api';
import { isCancellation, NotFoundError, ServerError } from '../errors';
import type { Job } from '../model';
import { OffsetReader } from '../offsetReader';
import { DRIVER_PY } from './driver';
import { kernelScript, KERNEL_JOB_NAME, type KernelResources } from './kernelJob';
import { displayData, isText, MAX_LINE, parseMessage, type OutputMessage } from './messages';

export { kernelScript, KERNEL_JOB_NAME, notebookScratch, type KernelResources } from './kernelJob';
export type { OutputMessage } from './messages';

/** Where a kernel runs: enough to attach to it again (after a window reload). */
export interface KernelHandle {
  system: string;
  jobId: string;
  /** The session folder. */
  dir: string;
}

export type KernelState =
  | { state: 'queued'; job?: Job }
  | { state: 'idle' | 'busy'; host?: string; python?: string; job?: Job }
  | { state: 'restarting' }
  | { state: 'ended'; why: string };

export interface CellResult {
  status: 'ok' | 'error' | 'interrupted' | 'aborted';
  /** The execution count the cell was run as. */
  count: number;
}

export interface SessionOptions {
  /** A look at the job while nothing runs (ms); also how soon a kernel's end is noticed when idle. */
  idleCheckMs?: number;
  /** First and last poll interval while a cell runs (ms). */
  fastMs?: number;
  maxFastMs?: number;
  /** Block size of the log reads (the server's view limit). */
  chunk?: number;
  onState?(s: KernelState): void;
  /** Requests made (bench and tests). */
  onRequest?(what: string): void;
}

interface Pending {
  onOutput(m: OutputMessage): void;
  resolve(r: CellResult): void;
  reject(e: Error): void;
}

export class NotebookSession {
  private readonly reader: OffsetReader;
  private carry = '';
  private lastSeq = 0;
  private requestNo = 0;
  private count = 0;
  private readonly pending = new Map<string, Pending>();
  private stopped = false;
  private wake: (() => void) | undefined;
  private ended: string | undefined;
  private started = false;
  private host: string | undefined;
  private python: string | undefined;
  /** The job as last seen (its start and time limit: the time left). */
  private lastJob: Job | undefined;
  private readonly loop: Promise<void>;
  /** Settles after the loop's first pass: an attached session has then read what the kernel ran. */
  private readonly firstPass: Promise<void>;
  private passed: (() => void) | undefined;
  /** The kernel's state now. */
  state: KernelState = { state: 'queued' };

  private constructor(private readonly api: FirecrestApi, readonly handle: KernelHandle, private readonly o: SessionOptions) {
    this.reader = new OffsetReader({ view: (s, p, v) => this.counted('read', api.view(s, p, v)) }, handle.system, `${handle.dir}/out.log`, o.chunk ?? 1 << 20);
    this.firstPass = new Promise((resolve) => { this.passed = resolve; });
    this.loop = this.run().finally(() => this.passed?.());
  }

  /** Starts a kernel: its session folder (the driver in it), then its job. */
  static async start(api: FirecrestApi, system: string, scratch: string, r: KernelResources, o: SessionOptions = {}): Promise<NotebookSession> {
    const dir = `${scratch.replace(/\/+$/, '')}/${randomBytes(6).toString('hex')}`;
    await api.mkdir(system, `${dir}/in`, { parents: true });
    o.onRequest?.('mkdir');
    await api.uploadSmall(system, dir, 'driver.py', new TextEncoder().encode(DRIVER_PY));
    o.onRequest?.('upload');
    let jobId: string;
    try {
      jobId = await api.submitJob(system, { script: kernelScript(dir, r), workingDirectory: dir, name: KERNEL_JOB_NAME, partition: r.partition, account: r.account });
      o.onRequest?.('submit');
    } catch (e) {
      await api.remove(system, dir).catch(() => undefined);
      throw e;
    }
    return new NotebookSession(api, { system, jobId, dir }, o);
  }

  /** Attaches to a kernel that runs (after a reload): the log is read from its start, each message once. */
  static attach(api: FirecrestApi, handle: KernelHandle, o: SessionOptions = {}): NotebookSession {
    return new NotebookSession(api, handle, o);
  }

  private counted<T>(what: string, p: Promise<T>): Promise<T> {
    this.o.onRequest?.(what);
    return p;
  }

  private setState(s: KernelState): void {
    this.state = s;
    this.o.onState?.(s);
  }

  /** Runs a cell's code; `onOutput` takes its output as it comes. Resolves when the cell is done. */
  async execute(cell: string, code: string, onOutput: (m: OutputMessage) => void): Promise<CellResult> {
    if (this.ended) throw new ServerError(`The kernel has ended: ${this.ended}`);
    if (!/^[\w.:-]{1,200}$/.test(cell)) throw new Error(`Invalid cell id ${JSON.stringify(cell)}`);
    // After an attach, the counts go on from what the kernel ran.
    await this.firstPass;
    const done = new Promise<CellResult>((resolve, reject) => this.pending.set(cell, { onOutput, resolve, reject }));
    try {
      await this.request({ type: 'execute', cell, count: ++this.count, code });
    } catch (e) {
      this.pending.delete(cell);
      throw e;
    }
    this.wake?.();
    return done;
  }

  /** Stops the running cell; the kernel's state is kept. */
  async interrupt(): Promise<void> {
    await this.request({ type: 'interrupt' });
    this.wake?.();
  }

  /** A fresh Python process in the same job; cells waiting are dropped ('aborted'). */
  async restart(): Promise<void> {
    this.started = false;
    this.setState({ state: 'restarting' });
    await this.request({ type: 'restart' });
    this.wake?.();
  }

  /** Ends the kernel: the driver stops, the job is cancelled and the session folder removed. */
  async shutdown(): Promise<void> {
    await this.request({ type: 'shutdown' }).catch(() => undefined);
    await this.end('shut down');
    await this.api.cancelJob(this.handle.system, this.handle.jobId).catch(() => undefined);
    await this.api.waitForJob(this.handle.system, this.handle.jobId, { overallTimeoutMs: 15_000, notFoundTimeoutMs: 0 }).catch(() => undefined);
    await this.api.remove(this.handle.system, this.handle.dir).catch(() => undefined);
  }

  /** Stops reading (the kernel's job runs on: attach again later). */
  async detach(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop.catch(() => undefined);
  }

  private async request(body: Record<string, unknown>): Promise<void> {
    // Zero-padded, so that the driver takes them in the order sent; `end` tells a whole file.
    const name = `${String(++this.requestNo).padStart(6, '0')}-${randomBytes(3).toString('hex')}.json`;
    await this.counted('request', this.api.uploadSmall(this.handle.system, `${this.handle.dir}/in`, name, new TextEncoder().encode(JSON.stringify({ ...body, end: true }))));
  }

  private async end(why: string): Promise<void> {
    if (this.ended) return;
    this.ended = why;
    this.stopped = true;
    this.wake?.();
    for (const [cell, p] of this.pending) {
      this.pending.delete(cell);
      p.reject(new ServerError(`The kernel has ended: ${why}`));
    }
    this.setState({ state: 'ended', why });
  }

  /** Takes the complete lines of what was read, each message once and in order. */
  private take(text: string): void {
    const lines = (this.carry + text).split('\n');
    this.carry = lines.pop() ?? '';
    if (this.carry.length > MAX_LINE) this.carry = '';
    for (const line of lines) {
      const m = parseMessage(line);
      if (!m || (m.seq as number) <= this.lastSeq) continue;
      this.lastSeq = m.seq as number;
      this.dispatch(m);
    }
  }

  private dispatch(m: Record<string, unknown>): void {
    const cell = isText(m.cell) ? m.cell : undefined;
    const p = cell ? this.pending.get(cell) : undefined;
    switch (m.type) {
      case 'status':
        if (m.state === 'idle' || m.state === 'busy') {
          this.started = true;
          if (isText(m.host)) this.host = m.host;
          if (isText(m.python)) this.python = m.python;
          this.setState({ state: m.state, host: this.host, python: this.python, job: this.lastJob });
        } else if (m.state === 'restarting') {
          this.started = false;
          this.setState({ state: 'restarting' });
        } else if (m.state === 'ended') {
          void this.end('the kernel was shut down');
        }
        return;
      case 'stream':
        if (p && isText(m.text) && (m.name === 'stdout' || m.name === 'stderr')) p.onOutput({ type: 'stream', cell: cell!, name: m.name, text: m.text });
        return;
      case 'display':
        if (p) p.onOutput({ type: 'display', cell: cell!, data: displayData(m.data) });
        return;
      case 'error':
        if (p) p.onOutput({ type: 'error', cell: cell!, ename: isText(m.ename) ? m.ename : 'Error', evalue: isText(m.evalue) ? m.evalue : '', traceback: Array.isArray(m.traceback) ? m.traceback.filter(isText) : [] });
        return;
      case 'done':
        // Counts go on from what the kernel ran (after an attach too).
        if (Number.isSafeInteger(m.count)) this.count = Math.max(this.count, m.count as number);
        if (p) {
          this.pending.delete(cell!);
          // The driver runs one cell at a time and says "idle" after this line: with nothing more
          // asked of it, the kernel is idle now, as the cell's caller sees it end (a read of the
          // log may end between the two lines).
          if (this.pending.size === 0 && this.state.state === 'busy') this.setState({ ...this.state, state: 'idle' });
          const status = m.status === 'ok' || m.status === 'error' || m.status === 'interrupted' || m.status === 'aborted' ? m.status : 'error';
          p.resolve({ status, count: Number.isSafeInteger(m.count) ? (m.count as number) : 0 });
        }
        return;
    }
  }

  /** Reads what the log has now; true when it grew. */
  private async readLog(): Promise<boolean> {
    let grew = false;
    try {
      for (;;) {
        const r = await this.reader.read({});
        if (r.text) {
          grew = true;
          this.take(r.text);
        }
        if (!r.full) break;
      }
    } catch (e) {
      // The log is not there until the driver starts.
      if (!(e instanceof NotFoundError) && !isCancellation(e)) this.o.onRequest?.('read-failed');
    }
    return grew;
  }

  /** The job now; ends the session when it has ended (after one last read of the log). */
  private async lookAtJob(): Promise<Job | undefined> {
    const job = await this.counted('job', this.api.job(this.handle.system, this.handle.jobId)).catch((e: unknown) => (e instanceof NotFoundError ? undefined : null));
    if (job === null) return undefined; // the server away: asked again next time
    if (job) this.lastJob = job;
    if (job === undefined || job.isFinal) {
      const last = await this.reader.read({ final: true }).catch(() => undefined);
      if (last?.text) this.take(`${last.text}\n`);
      // Nothing attaches to an ended kernel: its folder goes (before anyone is told it ended).
      await this.api.remove(this.handle.system, this.handle.dir).catch(() => undefined);
      await this.end(job ? `job ${this.handle.jobId} ended (${job.state.toLowerCase()})` : `job ${this.handle.jobId} is gone`);
      return undefined;
    }
    return job;
  }

  /**
   * While the job waits: a look at it every 1 s, growing to 5 s (its state and expected start).
   * Once the driver runs: the log is read from 100 ms, growing to 1 s, while a cell runs or waits;
   * with nothing to run, only a look at the job every `idleCheckMs` (the heartbeat).
   */
  private async run(): Promise<void> {
    const first = this.o.fastMs ?? 100;
    const maxFast = this.o.maxFastMs ?? 1000;
    const idleMs = this.o.idleCheckMs ?? 60_000;
    let wait = first;
    let queuedWait = 1000;
    let lastJobLook = 0;
    let woken = true;
    while (!this.stopped) {
      let pause: number;
      if (!this.started) {
        const job = await this.lookAtJob();
        lastJobLook = Date.now();
        if (this.stopped) return;
        if (job && job.stateClass !== 'running') {
          if (this.state.state !== 'restarting') this.setState({ state: 'queued', job });
          pause = queuedWait;
          queuedWait = Math.min(5000, Math.round(queuedWait * 1.5));
        } else {
          // Running: the driver starts (or restarts) and says so in the log.
          const grew = await this.readLog();
          wait = grew ? first : Math.min(maxFast, Math.round(wait * 1.5));
          pause = wait;
        }
      } else {
        const busy = this.pending.size > 0;
        const grew = busy || woken ? await this.readLog() : false;
        // A cell that runs quiet for long may have lost its job (a cancel, the time limit): looked at more often.
        if (Date.now() - lastJobLook >= (this.pending.size > 0 ? Math.min(idleMs, 10_000) : idleMs)) {
          lastJobLook = Date.now();
          const job = await this.lookAtJob();
          if (job && (this.state.state === 'idle' || this.state.state === 'busy')) this.setState({ ...this.state, job });
        }
        if (this.stopped) return;
        wait = grew ? first : Math.min(maxFast, Math.round(wait * 1.5));
        pause = this.pending.size > 0 || !this.started ? wait : Math.max(0, idleMs - (Date.now() - lastJobLook));
      }
      woken = false;
      this.passed?.();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pause);
        this.wake = () => {
          clearTimeout(t);
          wait = first;
          woken = true;
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
