/**
 * A gzip'd ustar archive built in memory, so that a folder of thousands of entries can be made on
 * the cluster with two requests (upload + extract) instead of one upload per file. Used by the fs
 * bench and the fs host tests. Regular files and directories only; names up to 100 bytes.
 */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** Relative path; a trailing `/` makes a directory. */
  name: string;
  data?: Uint8Array;
}

function field(buf: Buffer, offset: number, length: number, value: string): void {
  buf.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, dir: boolean, mtime: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar name too long: ${name}`);
  const h = Buffer.alloc(512);
  field(h, 0, 100, name);
  field(h, 100, 8, octal(dir ? 0o755 : 0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(mtime, 12));
  field(h, 148, 8, '        ');
  field(h, 156, 1, dir ? '5' : '0');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

export function tarGz(entries: TarEntry[]): Uint8Array {
  const mtime = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [];
  for (const e of entries) {
    const dir = e.name.endsWith('/');
    const data = dir ? Buffer.alloc(0) : Buffer.from(e.data ?? new Uint8Array());
    parts.push(header(e.name, data.length, dir, mtime), data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(parts)));
}
