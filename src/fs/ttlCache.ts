/**
 * A small keyed cache with a time-to-live and single-flight: while a value is being fetched, every
 * caller of the same key shares the one promise (no second request for the same directory).
 * Invalidating a key while a fetch is in flight keeps that result out of the cache, so a write
 * that finished after the fetch started is never hidden by it.
 */
export class TtlCache<V> {
  private readonly settled = new Map<string, { value: V; at: number }>();
  private readonly inflight = new Map<string, Promise<V>>();
  private gen = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value when it is at most `maxAgeMs` old. */
  peek(key: string, maxAgeMs: number): V | undefined {
    return this.peekEntry(key, maxAgeMs)?.value;
  }

  /** Like `peek`, with the time the value was stored. */
  peekEntry(key: string, maxAgeMs: number): { readonly value: V; readonly at: number } | undefined {
    const hit = this.settled.get(key);
    return hit && this.now() - hit.at <= maxAgeMs ? hit : undefined;
  }

  /**
   * Changes with every store and invalidation: a value peeked at one generation is still the cached
   * one (if not expired) while the generation is the same.
   */
  get generation(): number {
    return this.gen;
  }

  get(key: string, maxAgeMs: number, fetch: () => Promise<V>): Promise<V> {
    const fresh = this.peek(key, maxAgeMs);
    if (fresh !== undefined) return Promise.resolve(fresh);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = fetch().then(
      (value) => {
        if (this.inflight.get(key) === p) this.store(key, value);
        return value;
      },
    );
    this.inflight.set(key, p);
    const clear = () => {
      if (this.inflight.get(key) === p) this.inflight.delete(key);
    };
    void p.then(clear, clear);
    return p;
  }

  /**
   * Replaces a cached value by `change(value)`, keeping the time it was fetched (what else it holds
   * is as old as before). False when nothing is cached under `key` or a fetch of it is in flight.
   */
  patch(key: string, change: (value: V) => V): boolean {
    const hit = this.settled.get(key);
    if (!hit || this.inflight.has(key)) return false;
    this.gen++;
    this.settled.set(key, { value: change(hit.value), at: hit.at });
    return true;
  }

  /** Drops the keys the predicate selects, cached or in flight. */
  invalidate(select: (key: string) => boolean): void {
    this.gen++;
    for (const k of [...this.settled.keys()]) if (select(k)) this.settled.delete(k);
    for (const k of [...this.inflight.keys()]) if (select(k)) this.inflight.delete(k);
  }

  private store(key: string, value: V): void {
    this.gen++;
    this.settled.delete(key);
    this.settled.set(key, { value, at: this.now() });
    // Map keeps insertion order: the first key is the oldest fetch.
    while (this.settled.size > this.maxEntries) {
      const oldest = this.settled.keys().next().value;
      if (oldest === undefined) break;
      this.settled.delete(oldest);
    }
  }
}
