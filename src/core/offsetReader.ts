/**
 * Reading a growing text file by byte offset through `view`, exactly, on servers that disagree on
 * what `view?offset&size` means. Ours (and the API's description) return `size` bytes from
 * `offset`. The upstream v2 server reads whole blocks (`dd bs=size skip=offset/size count=2`),
 * decodes them, and slices the *string* from `offset % size` for `size` characters: with
 * multi-byte characters before `offset` in its block, that lands on the wrong characters.
 *
 * The reader asks only for offsets that are a multiple of the size it asks for, so the slice
 * starts at the block start on both kinds of server, and chooses the block so that it starts at
 * most a few bytes before the position: size = floor(pos / k) with k = ceil(pos / chunk), fewer
 * than k bytes early (k stays far below chunk / 2 for any file under chunk² / 8 bytes: 128 GiB
 * for 1 MiB chunks). Those few bytes it has already read; it drops as many characters as they
 * decode to (both servers replace broken sequences the same way). It consumes text up to the last newline (or, for a line longer
 * than a block, up to the last whole character) and advances by the UTF-8 bytes consumed, so the
 * next position is always a character boundary.
 */
import type { CallOptions } from './api';

const REPLACEMENT = '\ufffd';
/** Bytes of consumed text kept to know the few bytes before a block that starts early. */
const KEEP = 64 * 1024;
/** Below this many bytes read, a read starts at the file's start (blocks of `pos` bytes would be tiny). */
const TINY = 64;
/** What such a read asks for beyond the bytes already read. */
const MIN_BLOCK = 4096;

export interface ViewSource {
  view(system: string, path: string, opts?: CallOptions & { offset?: number; size?: number }): Promise<string>;
}

export interface OffsetRead {
  /** Text consumed by this read (complete lines, or the whole answer when `final`). */
  text: string;
  /** Bytes the server sent (the UTF-8 size of its answer). */
  fetched: number;
  /** The server had a whole block and some of it was consumed: read again at once. */
  full: boolean;
}

/** Code points of `s`, as the servers count characters when they slice. */
function codePoints(s: string): string[] {
  return Array.from(s);
}

export class OffsetReader {
  private pos = 0;
  private recent: Buffer = Buffer.alloc(0);
  /** After a seek: the first answer starts at a block boundary that may cut a line (and a character). */
  private midLine = false;

  constructor(private readonly api: ViewSource, private readonly system: string, private readonly path: string, private readonly chunk = 1 << 20) {}

  /** Bytes of the file consumed so far. */
  get offset(): number {
    return this.pos;
  }

  /**
   * Continues from about `offset` (rounded down to a whole chunk; 0 below one chunk): the text
   * before it is skipped, and the first read starts with the first whole line after it.
   */
  seek(offset: number): void {
    this.pos = offset < this.chunk ? 0 : Math.floor(offset / this.chunk) * this.chunk;
    this.recent = Buffer.alloc(0);
    this.midLine = this.pos > 0;
  }

  /**
   * The block to ask for: an offset that is a multiple of the size, at most a few bytes before
   * `pos` (less than MIN_BLOCK bytes while the file is small, when blocks are never smaller).
   */
  private block(): { offset: number; size: number } {
    // Blocks of a few bytes could hold no whole character: below TINY bytes the file is read
    // again from its start (never more than TINY bytes twice).
    if (this.pos < Math.min(TINY, this.chunk / 2)) return { offset: 0, size: Math.min(this.chunk, this.pos + MIN_BLOCK) };
    const k = Math.ceil(this.pos / this.chunk);
    const size = Math.floor(this.pos / k);
    return { offset: Math.floor(this.pos / size) * size, size };
  }

  /** One `view`; `final` (the file will not grow) consumes a trailing partial line too. */
  async read(o: CallOptions & { final?: boolean } = {}): Promise<OffsetRead> {
    const { offset, size } = this.block();
    const before = this.pos - offset;
    const answer = await this.api.view(this.system, this.path, { offset, size, signal: o.signal, timeoutMs: o.timeoutMs });
    const fetched = Buffer.byteLength(answer);
    let chars = codePoints(answer);
    const full = fetched >= size;
    if (before > 0) {
      const known = this.recent.subarray(Math.max(0, this.recent.length - before));
      chars = chars.slice(codePoints(known.toString('utf8')).length);
    }
    let skipped = 0;
    let skippedText = '';
    if (this.midLine) {
      // A block boundary inside a character shows as replacement characters, one per byte cut off.
      let i = 0;
      while (i < chars.length && chars[i] === REPLACEMENT && i < 3) i++;
      const nl = chars.indexOf('\n', i);
      if (nl < 0) {
        if (!full) return { text: '', fetched, full };
        skippedText = chars.slice(i).join('');
        skipped = i + Buffer.byteLength(skippedText);
        chars = [];
      } else {
        skippedText = chars.slice(i, nl + 1).join('');
        skipped = i + Buffer.byteLength(skippedText);
        chars = chars.slice(nl + 1);
        this.midLine = false;
      }
    }
    // A block ending inside a character ends in replacement characters: never consume those.
    let end = chars.length;
    if (full) while (end > 0 && chars[end - 1] === REPLACEMENT && chars.length - end < 3) end--;
    const usable = chars.slice(0, end).join('');
    const nl = usable.lastIndexOf('\n');
    let text: string;
    if (o.final || nl === usable.length - 1) text = usable;
    else if (nl >= 0) text = usable.slice(0, nl + 1);
    else if (full) text = usable; // one line longer than a block: consume it rather than stall
    else text = '';
    const consumed = Buffer.from(text, 'utf8');
    this.pos += skipped + consumed.length;
    this.recent = Buffer.concat([this.recent, Buffer.from(skippedText, 'utf8'), consumed]);
    if (this.recent.length > KEEP) this.recent = this.recent.subarray(this.recent.length - KEEP);
    // Nothing could be consumed (a character still being written): wait for more, never spin.
    return { text, fetched, full: full && skipped + consumed.length > 0 };
  }
}
