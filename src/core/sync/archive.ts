/**
 * The gzipped tar a sync sends its small files in, built a file at a time.
 *
 * Each file is read once: opened (never through a symbolic link), `fstat`ed and read whole, and its
 * tar header encoded by node-tar's `Header` (and `Pax`, for long or non-ASCII names) from that same
 * `fstat`, so the header always describes the bytes that follow it. node-tar's own packer costs
 * twice as much for a folder of small files (it `lstat`s each file again and runs a stream per
 * file); its output for the same files is byte for byte the same (test/unit/sync-archive.test.ts).
 * Entries are written as node-tar's portable mode writes them: no owner, group or user names (the
 * cluster's user owns what is extracted), permission bits without group or other write. Unlike
 * node-tar, a file with a second hard link in the folder is packed as a file of its own: the sync
 * tracks each path on its own.
 *
 * The caller gives the event loop a turn when `add` says so (every 64 files or 1 MiB), which keeps
 * the extension host responsive. The tar goes to gzip in batches of 256 KiB, compressed in the
 * thread pool while the next files are packed.
 *
 * A sync starts one while it scans the folder (`previewSync`), with the files the manifest already
 * says will go, so packing overlaps the remote listing; `runSync` uses it only when the plan sends
 * exactly those files.
 */
import { once } from 'node:events';
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { Header, Pax } from 'tar';
import { slicer, toPosix, type LocalFile } from './localTree';

/** Tar bytes handed to gzip at a time: small enough that compressing the last batch, which nothing overlaps, is short. */
const BATCH_BYTES = 256 << 10;

/** Zeros for padding and the end-of-archive blocks. */
const ZEROS = Buffer.alloc(1024);
// Never through a link; never waiting on a FIFO that replaced a file since the scan (the open
// returns at once, and fstat then refuses it).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Permission bits as node-tar's portable mode writes them: owner read/write, no group or other write. */
function portableMode(mode: number): number {
  return ((mode & 0o7777) | 0o600) & ~0o22;
}

/**
 * The whole content of the regular file `path` and its `fstat`; never follows a link. A file that
 * grew past `maxBytes` since the scan is refused: it belongs with the large files (staged, with
 * progress), not in an archive held in memory.
 */
function readWhole(path: string, maxBytes: number): { st: Stats; data: Buffer } {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is no longer a regular file`);
    if (st.size > maxBytes) throw new Error(`${path} grew to ${st.size} bytes since the folder was scanned (more than the ${maxBytes} a file may have to travel in the archive): sync again`);
    const data = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < data.length) {
      const got = readSync(fd, data, n, data.length - n, n);
      if (got === 0) break;
      n += got;
    }
    // A file that shrank since its fstat is sent as it is now: the header says how long.
    return { st, data: n === data.length ? data : data.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}

export class ArchiveBuilder {
  private readonly out: Buffer[] = [];
  private readonly gzip = createGzip();
  private readonly gzipped: Promise<void>;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private readonly files64 = slicer(64);
  private readonly mib = slicer(1 << 20);
  /** What was added, in order. */
  readonly files: string[] = [];

  /** `maxFileBytes`: the most a file may hold when it is read (see `readWhole`). */
  /**
   * `notAfter`: the latest mtime a member may carry (epoch ms, the cluster's clock): a file stamped
   * later, by a laptop clock ahead of the cluster's, would be "in the future" there, which
   * upstream v1's extract refuses.
   */
  constructor(
    private readonly root: string,
    private readonly maxFileBytes = Number.POSITIVE_INFINITY,
    private readonly notAfter?: () => number,
  ) {
    this.gzip.on('data', (chunk: Buffer) => this.out.push(chunk));
    this.gzipped = new Promise<void>((resolve, reject) => {
      this.gzip.once('end', resolve);
      this.gzip.once('error', reject);
    });
    this.gzipped.catch(() => undefined);
  }

  /**
   * Packs `f`, read now. Throws when it cannot be read; a promise means "give the event loop a turn
   * (and let gzip catch up) before the next file".
   */
  add(f: LocalFile): Promise<void> | undefined {
    const path = join(this.root, f.rel);
    if (f.kind === 'link') {
      const st = lstatSync(path);
      if (!st.isSymbolicLink()) throw new Error(`${path} is no longer a symbolic link`);
      this.entry(f.rel, 'SymbolicLink', st, 0, toPosix(readlinkSync(path)));
    } else {
      const { st, data } = readWhole(path, this.maxFileBytes);
      this.entry(f.rel, 'File', st, data.length);
      this.push(data);
      const pad = (512 - (data.length % 512)) % 512;
      if (pad) this.push(ZEROS.subarray(0, pad));
    }
    this.files.push(f.rel);
    const turn = this.files64() ?? this.mib(f.size);
    return turn ? this.turn(turn) : undefined;
  }

  private entry(rel: string, type: 'File' | 'SymbolicLink', st: Stats, size: number, linkpath?: string): void {
    const latest = this.notAfter?.();
    const mtime = latest !== undefined && st.mtimeMs > latest ? new Date(Math.floor(latest / 1000) * 1000) : st.mtime;
    const header = new Header({ path: rel, linkpath, mode: portableMode(st.mode), size, mtime, type });
    if (header.encode()) this.push(new Pax({ mtime: header.mtime, path: rel, linkpath, size: header.size }).encode());
    if (!header.block) throw new Error(`no tar header for ${rel}`);
    this.push(header.block);
  }

  private push(b: Buffer): void {
    this.batch.push(b);
    this.batchBytes += b.length;
    if (this.batchBytes >= BATCH_BYTES) this.flush();
  }

  private async turn(turn: Promise<void>): Promise<void> {
    await turn;
    // Compression behind: wait for it rather than hold the tar in memory.
    if (this.gzip.writableNeedDrain) await once(this.gzip, 'drain');
  }

  /** The gzipped archive of everything added. */
  async finish(): Promise<Uint8Array> {
    try {
      this.push(ZEROS);
      this.flush();
      this.gzip.end();
      await this.gzipped;
    } catch (e) {
      this.gzip.destroy();
      throw e;
    }
    return new Uint8Array(Buffer.concat(this.out));
  }

  /** Drops the archive (a file could not be read, or the sync was cancelled). */
  abandon(): void {
    this.gzip.destroy();
  }

  private flush(): void {
    if (this.batchBytes === 0) return;
    this.gzip.write(this.batch.length === 1 ? this.batch[0] : Buffer.concat(this.batch, this.batchBytes));
    this.batch = [];
    this.batchBytes = 0;
  }
}

/** The files as one gzipped tar. */
export async function archiveOf(root: string, files: LocalFile[], maxFileBytes?: number, notAfter?: () => number): Promise<Uint8Array> {
  const a = new ArchiveBuilder(root, maxFileBytes, notAfter);
  try {
    for (const f of files) {
      const turn = a.add(f);
      if (turn) await turn;
    }
  } catch (e) {
    a.abandon();
    throw e;
  }
  return a.finish();
}
