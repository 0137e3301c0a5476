/**
 * Drives the automatic refresh of a view: debounced, one run at a time, only while the view is
 * visible, at a rate the run itself chooses (it knows whether jobs are pending or running), and
 * slower after a 429. Nothing is scheduled while hidden: a request made then is remembered and
 * honoured when the view shows again. Free of `vscode` so benchmarks and tests drive it from Node.
 */
import { RateLimitedError } from '../core/errors';

export type RefreshReason = 'manual' | 'visible' | 'timer' | 'config' | 'connection' | 'action';

export interface RefreshRun {
  /** Milliseconds until the next automatic run, or undefined for none (nothing active). */
  nextDelayMs?: number;
}

export interface RefreshSchedulerOptions {
  run(reason: RefreshReason, signal: AbortSignal): Promise<RefreshRun>;
  debounceMs?: number;
  /** Longest back-off after repeated 429s. */
  maxBackoffMs?: number;
  onError?(e: unknown): void;
  /** After each run, once the next delay (and any back-off) is decided. */
  onSettled?(): void;
}

export class RefreshScheduler {
  private visible = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: AbortController | undefined;
  private queued: RefreshReason | undefined;
  /** A request arrived while hidden (or the timer fell due): run on the next show. */
  private stale = true;
  private backoffMs = 0;
  private lastDelay: number | undefined;
  private disposed = false;
  /** Runs begun so far. */
  private started = 0;
  /** Callers of `refreshed`, each waiting for a run begun after its call (`after`). */
  private waiters: { after: number; settle(ok: boolean): void }[] = [];
  private readonly debounceMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly opts: RefreshSchedulerOptions) {
    this.debounceMs = opts.debounceMs ?? 300;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5 * 60_000;
  }

  get isVisible(): boolean {
    return this.visible;
  }

  /** Current back-off after 429s (0 when not backing off). */
  get backoff(): number {
    return this.backoffMs;
  }

  /** Delay the last run asked for (after back-off), for the view's status text and tests. */
  get currentDelayMs(): number | undefined {
    return this.lastDelay;
  }

  setVisible(visible: boolean): void {
    if (this.visible === visible) return;
    this.visible = visible;
    if (!visible) {
      // Hidden: drop the timer; a run in flight may finish but schedules nothing.
      if (this.timer !== undefined) this.stale = true;
      this.clearTimer();
      return;
    }
    if (!this.stale) return;
    if (this.backoffMs > 0) {
      // Still backing off after a 429: showing the view again does not cut the wait short.
      this.timer = setTimeout(() => void this.execute('visible'), this.backoffMs);
      return;
    }
    this.request('visible');
  }

  /** Asks for a refresh soon (debounced). While hidden it only marks the view stale. */
  request(reason: RefreshReason): void {
    if (this.disposed) return;
    this.stale = true;
    if (!this.visible) return;
    if (this.running) {
      this.queued = reason;
      return;
    }
    this.clearTimer();
    const delay = reason === 'manual' ? 0 : this.debounceMs;
    this.timer = setTimeout(() => void this.execute(reason), delay);
  }

  /**
   * Asks for a run now and resolves true once a run begun after this call has ended: a run already
   * under way may have asked the server before what the caller waits for existed (a job just
   * submitted). False after `timeoutMs` (a hidden view runs nothing) or on dispose.
   */
  refreshed(reason: RefreshReason, timeoutMs: number): Promise<boolean> {
    if (this.disposed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        after: this.started,
        settle: (ok: boolean) => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), timeoutMs);
      this.waiters.push(waiter);
      this.request(reason);
    });
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    this.running?.abort();
    for (const w of [...this.waiters]) w.settle(false);
  }

  private async execute(reason: RefreshReason): Promise<void> {
    this.timer = undefined;
    if (this.disposed || !this.visible) return;
    const ctl = new AbortController();
    this.running = ctl;
    this.stale = false;
    const run = ++this.started;
    let next: number | undefined;
    try {
      next = (await this.opts.run(reason, ctl.signal)).nextDelayMs;
      this.backoffMs = 0;
    } catch (e) {
      if (e instanceof RateLimitedError) {
        // Double the wait each time, never below what the server asked for.
        const asked = (e.retryAfterSeconds ?? 0) * 1000;
        this.backoffMs = Math.min(this.maxBackoffMs, Math.max(asked, this.backoffMs * 2 || 10_000));
        next = this.backoffMs;
      } else {
        this.opts.onError?.(e);
      }
    } finally {
      this.running = undefined;
    }
    if (this.disposed) return;
    if (next !== undefined && this.backoffMs === 0 && next > 0) next = Math.max(next, this.debounceMs);
    this.lastDelay = next;
    this.opts.onSettled?.();
    for (const w of this.waiters.filter((x) => run > x.after)) w.settle(true);
    const queued = this.queued;
    this.queued = undefined;
    if (!this.visible) {
      // Became hidden meanwhile: stay quiet, catch up when shown.
      if (queued !== undefined || next !== undefined) this.stale = true;
      return;
    }
    if (queued !== undefined) {
      this.request(queued);
      return;
    }
    if (next !== undefined) {
      this.timer = setTimeout(() => void this.execute('timer'), next);
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
