import { sleep } from './sleep';

/**
 * Shared back-off for one origin: after a 429 every call to that origin waits until the time the
 * server named, so the whole client slows down rather than the one call that was refused.
 */
export class RateGate {
  private until = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Resolves once the origin may be called again. */
  async wait(signal?: AbortSignal): Promise<void> {
    for (let left = this.until - this.now(); left > 0; left = this.until - this.now()) await sleep(left, signal);
  }

  /** Holds every caller back for `ms` from now (never shortens a longer hold). */
  block(ms: number): void {
    this.until = Math.max(this.until, this.now() + ms);
  }
}
