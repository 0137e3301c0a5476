/**
 * Progress of one transfer: bytes and parts done, a smoothed rate and the ETA derived from it,
 * reported at most every `intervalMs` (a 10 GB upload must not emit a million events).
 */
import type { Progress } from '../model';

/** Turns byte counts into throttled `Progress` events. */
export class ProgressMeter {
  private done = 0;
  private parts = 0;
  private rate = 0;
  private lastAt: number;
  private lastDone = 0;
  private lastEmit = 0;

  constructor(
    private readonly total: number,
    private readonly partsTotal: number | undefined,
    private readonly emit: ((p: Progress) => void) | undefined,
    private phase = 'transferring',
    private readonly intervalMs = 250,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastAt = now();
  }

  /** Bytes so far (after `add`/`sub`). */
  get bytesDone(): number {
    return this.done;
  }

  /** Counts `n` more bytes (negative: bytes of a failed attempt that will be sent again). */
  add(n: number): void {
    this.done += n;
    this.tick(false);
  }

  partDone(): void {
    this.parts++;
    this.tick(true);
  }

  /** Parts (and their bytes) already done before this run, e.g. when resuming. */
  skip(bytes: number, parts: number): void {
    this.done += bytes;
    this.lastDone = this.done;
    this.parts += parts;
  }

  setPhase(phase: string, message?: string): void {
    this.phase = phase;
    this.emit?.({ phase, bytesDone: this.done, bytesTotal: this.total, partsDone: this.parts, partsTotal: this.partsTotal, message });
  }

  private tick(force: boolean): void {
    const t = this.now();
    const dt = t - this.lastAt;
    if (dt >= 200) {
      // Exponential smoothing over ~2 s: steady enough to read, quick to follow a change.
      const instant = ((this.done - this.lastDone) * 1000) / dt;
      const w = Math.min(1, dt / 2000);
      this.rate = this.rate === 0 ? instant : this.rate * (1 - w) + instant * w;
      this.lastAt = t;
      this.lastDone = this.done;
    }
    if (!this.emit || (!force && t - this.lastEmit < this.intervalMs)) return;
    this.lastEmit = t;
    const left = Math.max(0, this.total - this.done);
    this.emit({
      phase: this.phase,
      bytesDone: this.done,
      bytesTotal: this.total,
      rate: this.rate > 0 ? this.rate : undefined,
      eta: this.rate > 0 ? left / this.rate : undefined,
      partsDone: this.partsTotal === undefined ? undefined : this.parts,
      partsTotal: this.partsTotal,
    });
  }
}
