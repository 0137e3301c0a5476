/**
 * Parsing the search job's match file (the format is in searchScript.ts) as it grows: text comes
 * in pieces that may end anywhere, even inside a path, so a piece's incomplete last record waits
 * for the next one. Paths and lines are server data: a record that does not parse is counted and
 * dropped, never guessed at.
 */

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
}

/** Lines longer than this are cut (the match is still reported; the rest of the line is not kept). */
export const MAX_LINE_CHARS = 2000;

export class SearchOutputParser {
  private carry = '';

  /** Feeds the next text of the file; `final` when nothing will follow (an unterminated record is malformed). */
  push(text: string, final = false): ParsedPiece {
    const piece: ParsedPiece = { lines: [], files: 0, malformed: 0 };
    const s = this.carry + text;
    let at = 0;
    for (;;) {
      const nul = s.indexOf('\0', at);
      if (nul < 0) break;
      const nl = s.indexOf('\n', nul + 1);
      if (nl < 0) break;
      const path = s.slice(at, nul);
      const rest = s.slice(nul + 1, nl);
      at = nl + 1;
      if (path === '') this.control(rest, piece);
      else this.match(path, rest, piece);
    }
    this.carry = s.slice(at);
    if (final && this.carry !== '') {
      piece.malformed++;
      this.carry = '';
    }
    return piece;
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
