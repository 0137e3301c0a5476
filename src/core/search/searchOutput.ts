/**
 * Parsing the search job's match file (the format is in searchScript.ts) as it grows: text comes
 * in pieces that may end anywhere, even inside a path, so a piece's incomplete last record waits
 * for the next one. Paths and lines are server data: a record that does not parse is counted and
 * dropped, never guessed at.
 */
import { posix } from 'node:path';

export interface SearchLine {
  /** Absolute path of the file. */
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

export interface SearchEnd {
  /** The tool's exit status (grep through xargs: 0 fine, 123 some file unreadable; 141 stopped by the line bound). */
  status: number;
  /** find's exit status (grep only; 1 when a folder could not be read). */
  findStatus: number;
}

export interface ParsedPiece {
  lines: SearchLine[];
  /** Files searched in this piece (grep only). */
  files: number;
  tool?: string;
  end?: SearchEnd;
  /** Records that did not parse. */
  malformed: number;
  /** Records whose path passed MAX_PATH_CHARS: dropped unread (also counted in `malformed`). */
  overlong: number;
}

/** Lines longer than this are cut (the match is still reported; the rest of the line is not kept). */
export const MAX_LINE_CHARS = 2000;
/** A path longer than this is no path a file system gives: its record is dropped, not kept in memory. */
export const MAX_PATH_CHARS = 64 * 1024;
/** What is kept after a record's NUL: the line number, `:` and the line up to MAX_LINE_CHARS. */
const MAX_REST_CHARS = MAX_LINE_CHARS + 32;

/**
 * Reads records as they come, in one pass over each piece: what is kept of a record is bounded
 * (its path by MAX_PATH_CHARS, its line by MAX_LINE_CHARS), so a server that sends a record that
 * never ends costs its bytes' time once, not memory and not a rescan per piece.
 */
export class SearchOutputParser {
  /** The current record's path so far (before its NUL). */
  private path = '';
  /** After its NUL: the line number and text so far, at most MAX_REST_CHARS. */
  private rest = '';
  private inRest = false;
  /** The current record's path passed MAX_PATH_CHARS: it is dropped when it ends. */
  private overlong = false;

  /** Feeds the next text of the file; `final` when nothing will follow (an unterminated record is malformed). */
  push(text: string, final = false): ParsedPiece {
    const piece: ParsedPiece = { lines: [], files: 0, malformed: 0, overlong: 0 };
    let at = 0;
    while (at < text.length) {
      if (!this.inRest) {
        const nul = text.indexOf('\0', at);
        const end = nul < 0 ? text.length : nul;
        if (!this.overlong) {
          this.path += text.slice(at, end);
          if (this.path.length > MAX_PATH_CHARS) {
            this.overlong = true;
            this.path = '';
          }
        }
        if (nul < 0) break;
        this.inRest = true;
        at = nul + 1;
        continue;
      }
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const room = MAX_REST_CHARS - this.rest.length;
      if (room > 0) this.rest += text.slice(at, Math.min(end, at + room));
      if (nl < 0) break;
      if (this.overlong) {
        piece.malformed++;
        piece.overlong++;
      } else if (this.path === '') this.control(this.rest, piece);
      else this.match(this.path, this.rest, piece);
      this.reset();
      at = nl + 1;
    }
    if (final && (this.path !== '' || this.inRest || this.overlong)) {
      piece.malformed++;
      if (this.overlong) piece.overlong++;
      this.reset();
    }
    return piece;
  }

  private reset(): void {
    this.path = '';
    this.rest = '';
    this.inRest = false;
    this.overlong = false;
  }

  private control(rest: string, piece: ParsedPiece): void {
    const [word, a, b] = rest.split(' ');
    if (word === 'F7T-FILES' && /^\d+$/.test(a ?? '')) piece.files += Number(a);
    else if (word === 'F7T-TOOL' && a) piece.tool = a;
    else if (word === 'F7T-END' && /^\d+$/.test(a ?? '') && /^\d+$/.test(b ?? '')) piece.end = { status: Number(a), findStatus: Number(b) };
    else piece.malformed++;
  }

  private match(path: string, rest: string, piece: ParsedPiece): void {
    const m = /^(\d+):/.exec(rest);
    if (!m || !path.startsWith('/')) {
      piece.malformed++;
      return;
    }
    const text = rest.slice(m[0].length);
    piece.lines.push({ path, line: Number(m[1]), text: text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text });
  }
}

/**
 * The results that lie inside the searched folder, their paths normalised (`a/./b`, `a//b`); a
 * path outside it (`/etc/shadow`, `<root>/../x`) is no result of this search, whatever the server
 * says: it is dropped and counted.
 */
export function insideFolder<T extends { path: string }>(root: string, lines: T[]): { kept: T[]; dropped: number } {
  const top = posix.normalize(root).replace(/\/+$/, '');
  const prefix = top === '' ? '/' : `${top}/`;
  const kept: T[] = [];
  let dropped = 0;
  for (const l of lines) {
    const path = posix.normalize(l.path);
    if (path.startsWith(prefix) && path.length > prefix.length) kept.push(path === l.path ? l : { ...l, path });
    else dropped++;
  }
  return { kept, dropped };
}

/**
 * A finder of where the query matches in a line, as [start, end) UTF-16 columns, for highlighting
 * (the regex is compiled once per search, not per line). The tool decided that the line matches;
 * this only finds the spans. A regex JavaScript cannot read gives no spans (the line is still a
 * result).
 */
export function rangeFinder(pattern: string, o: { regex?: boolean; matchCase?: boolean; wholeWord?: boolean }): (text: string) => [number, number][] {
  let source = o.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (o.wholeWord) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  let re: RegExp;
  try {
    re = new RegExp(source, `gu${o.matchCase ? '' : 'i'}`);
  } catch {
    return () => [];
  }
  return (text) => {
    const out: [number, number][] = [];
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      if (m[0].length === 0) continue;
      out.push([m.index, m.index + m[0].length]);
      if (out.length >= 100) break;
    }
    return out;
  };
}

/** `rangeFinder` for one line. */
export function matchRanges(text: string, pattern: string, o: { regex?: boolean; matchCase?: boolean; wholeWord?: boolean }): [number, number][] {
  return rangeFinder(pattern, o)(text);
}
