/**
 * Failed attempts per key (a client id and address, an account and address, an address) in a
 * sliding window. Past `max` failures within `windowMs`, the key must wait until its oldest
 * counted failure leaves the window: the caller refuses every attempt of that key meanwhile,
 * whatever it carries, since a success among the refusals would confirm a guess.
 *
 * Keys name the source address, so a guesser slows only themselves: the holder of the right
 * secret or password, coming from elsewhere, is not locked out by someone else's failures.
 */
export class FailureThrottle {
  private readonly byKey = new Map<string, number[]>();

  constructor(
    readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  private recent(key: string, now: number): number[] {
    const kept = (this.byKey.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (kept.length) this.byKey.set(key, kept);
    else this.byKey.delete(key);
    return kept;
  }

  /** Seconds the key must wait, or 0 when it may try. */
  waitSeconds(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.max) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.max] + this.windowMs - now) / 1000));
  }

  failed(key: string, now = Date.now()): void {
    // Bounded: a flood of made-up keys cannot grow the table without end.
    if (this.byKey.size > 10_000) this.byKey.clear();
    const recent = this.recent(key, now);
    recent.push(now);
    // Only the last `max` failures decide the wait: older ones need not be kept.
    this.byKey.set(key, recent.slice(-this.max));
  }
}

/** A key made of parts that cannot run into one another (a client id may hold any character but NUL). */
export function throttleKey(...parts: string[]): string {
  return parts.join('\0');
}
