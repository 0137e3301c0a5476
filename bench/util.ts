/** Small helpers the benches share. */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';

const MiB = 1024 * 1024;

/** Writes `size` random bytes to `path`, 8 MiB at a time. */
export async function writeRandom(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  for (let at = 0; at < size; at += 8 * MiB) {
    if (!out.write(randomBytes(Math.min(8 * MiB, size - at)))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

/** The median (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** This process's CPU seconds so far (user + system, all threads). */
export function selfCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}
