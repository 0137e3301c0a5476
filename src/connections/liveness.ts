/**
 * Whether a profile's server is there at all: after a request went unanswered, one small request
 * (no token, a short time limit), and while the server does not answer, again with growing waits.
 * Slow is not down: an answer ends the probe. One probe per profile at a time; all stop on dispose.
 */
export const PROBE_TIMEOUT_MS = 3000;
const PROBE_WAITS_MS = [2000, 4000, 8000, 15_000, 30_000];

export interface ProbeTarget {
  /** One look: true when the server answered. */
  ping(timeoutMs: number, signal: AbortSignal): Promise<boolean>;
  /** The profile still wants probing (it is connected or reconnecting, and the same entry). */
  current(): boolean;
  /** What a look found. */
  answered(up: boolean): void;
}

export class Liveness {
  private readonly probing = new Set<string>();
  private readonly lifetime = new AbortController();

  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  probe(name: string, target: ProbeTarget): void {
    if (this.probing.has(name) || this.lifetime.signal.aborted) return;
    this.probing.add(name);
    const run = async (): Promise<void> => {
      for (let i = 0; target.current(); i++) {
        const up = await target.ping(PROBE_TIMEOUT_MS, this.lifetime.signal);
        if (!target.current()) return;
        target.answered(up);
        if (up) return;
        await this.pause(PROBE_WAITS_MS[Math.min(i, PROBE_WAITS_MS.length - 1)]);
      }
    };
    void run().catch(() => undefined).finally(() => this.probing.delete(name));
  }

  /** Waits `ms`, or less when disposed. */
  private pause(ms: number): Promise<void> {
    const signal = this.lifetime.signal;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  dispose(): void {
    this.lifetime.abort();
  }
}
