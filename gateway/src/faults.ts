/**
 * Fault switches: let tests and benchmarks make the gateway misbehave the way real deployments do
 * (rate limiting, slowness, 5xx, dropped connections) without mocking the client.
 *
 * Each switch fires for a request when its `match` regex (tested on `METHOD /path`) matches and
 * either `next` is still > 0 (counted down: deterministic tests) or a seeded PRNG draw is below
 * `rate` (replayable randomness).
 */
export interface FaultSwitch {
  /** Probability 0..1 that a matching request is hit. */
  rate?: number;
  /** Hit exactly the next N matching requests (checked before `rate`). */
  next?: number;
  /** Regex on `METHOD /path` (path lower-cased for v2, no query). */
  match?: string;
}

export interface FaultConfig {
  /** Seed of the PRNG behind `rate` (default 1). */
  seed?: number;
  /** 429 with `Retry-After: retryAfterSeconds` (default 1). */
  rateLimit?: FaultSwitch & { retryAfterSeconds?: number };
  /**
   * Holds the request, before its handler runs, until the switches are next replaced or cleared:
   * a test decides when it goes on (e.g. to act while a command is half done).
   */
  hold?: FaultSwitch;
  /** Delays the request by a uniform draw in [minMs, ms] (minMs defaults to 0). */
  latency?: FaultSwitch & { ms?: number; minMs?: number };
  /** Answers with one of `statuses` (default 500, 502, 503) and a v2 error body. */
  error?: FaultSwitch & { statuses?: number[]; message?: string };
  /** Destroys the socket before the handler runs. */
  dropBefore?: FaultSwitch;
  /** Lets the handler act, then destroys the socket instead of answering. */
  dropAfter?: FaultSwitch;
  /** Sends the first `afterBytes` (default 65536) of a streamed answer, then drops the connection. */
  cutBody?: FaultSwitch & { afterBytes?: number };
  /** Flips the bits of the first byte of a streamed answer: bytes damaged on their way, length intact. */
  corruptBody?: FaultSwitch;
}

export type FaultName = 'rateLimit' | 'hold' | 'latency' | 'error' | 'dropBefore' | 'dropAfter' | 'cutBody' | 'corruptBody';
const NAMES: FaultName[] = ['rateLimit', 'hold', 'latency', 'error', 'dropBefore', 'dropAfter', 'cutBody', 'corruptBody'];

/** mulberry32: tiny, fast, good enough for fault dice; seeded so runs replay. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Validates a fault configuration from the admin API or config file; throws with a readable text. */
export function checkFaultConfig(raw: unknown): FaultConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('faults must be a JSON object');
  const cfg = raw as Record<string, unknown>;
  for (const key of Object.keys(cfg)) {
    if (key === 'seed') {
      if (typeof cfg.seed !== 'number') throw new Error('seed must be a number');
      continue;
    }
    if (!NAMES.includes(key as FaultName)) throw new Error(`unknown fault switch "${key}" (known: ${NAMES.join(', ')})`);
    const sw = cfg[key] as Record<string, unknown> | null;
    if (typeof sw !== 'object' || sw === null) throw new Error(`${key} must be an object`);
    if (sw.rate !== undefined && (typeof sw.rate !== 'number' || sw.rate < 0 || sw.rate > 1)) throw new Error(`${key}.rate must be a number in 0..1`);
    if (sw.next !== undefined && (!Number.isInteger(sw.next) || (sw.next as number) < 0)) throw new Error(`${key}.next must be a non-negative integer`);
    if (sw.match !== undefined) {
      if (typeof sw.match !== 'string') throw new Error(`${key}.match must be a string`);
      new RegExp(sw.match);
    }
  }
  return cfg;
}

/** The live fault state: configuration, compiled regexes, countdowns and the PRNG. */
export class Faults {
  private config: FaultConfig = {};
  private regex = new Map<FaultName, RegExp | undefined>();
  private random: () => number = prng(1);
  /** Lets the requests held so far go on (see `hold`). */
  private release: () => void = () => undefined;
  private released: Promise<void> = Promise.resolve();

  constructor(initial: FaultConfig = {}) {
    this.set(initial);
  }

  /** Replaces every switch (the admin API's PUT). */
  set(config: FaultConfig): void {
    this.config = structuredClone(checkFaultConfig(config));
    this.release();
    this.released = new Promise((resolve) => (this.release = resolve));
    this.regex.clear();
    for (const name of NAMES) {
      const m = this.config[name]?.match;
      this.regex.set(name, m === undefined ? undefined : new RegExp(m));
    }
    this.random = prng(this.config.seed ?? 1);
  }

  /** Current configuration, `next` counters showing what is left. */
  get(): FaultConfig {
    return structuredClone(this.config);
  }

  /** True when any switch could fire (lets the hot path skip all work when faults are off). */
  get active(): boolean {
    return NAMES.some((n) => {
      const s = this.config[n];
      return s !== undefined && ((s.next ?? 0) > 0 || (s.rate ?? 0) > 0);
    });
  }

  /** Decides whether switch `name` fires for `subject` (`METHOD /path`), consuming a `next` if so. */
  hit(name: FaultName, subject: string): boolean {
    const sw = this.config[name];
    if (!sw) return false;
    const re = this.regex.get(name);
    if (re && !re.test(subject)) return false;
    if ((sw.next ?? 0) > 0) {
      sw.next = (sw.next ?? 0) - 1;
      return true;
    }
    return (sw.rate ?? 0) > 0 && this.random() < (sw.rate ?? 0);
  }

  /** Resolves when the switches are next replaced or cleared: the end of a `hold`. */
  untilReleased(): Promise<void> {
    return this.released;
  }

  latencyMs(): number {
    const l = this.config.latency;
    const max = l?.ms ?? 0;
    const min = Math.min(l?.minMs ?? 0, max);
    return Math.round(min + (max - min) * this.random());
  }

  cutAfterBytes(): number {
    return this.config.cutBody?.afterBytes ?? 65536;
  }

  retryAfterSeconds(): number {
    return this.config.rateLimit?.retryAfterSeconds ?? 1;
  }

  errorStatus(): { status: number; message: string } {
    const statuses = this.config.error?.statuses?.length ? this.config.error.statuses : [500, 502, 503];
    const status = statuses[Math.floor(this.random() * statuses.length)] ?? 500;
    return { status, message: this.config.error?.message ?? `Injected fault: HTTP ${status}` };
  }
}
