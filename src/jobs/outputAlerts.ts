/**
 * Alerts in job output: the user's regexes (`firecrest.output.alerts`) matched against output as it
 * arrives, line by line. Free of `vscode`: the output documents feed it text and draw its matches.
 */
import { messageOf } from '../core/errors';

export interface AlertRule {
  /** The pattern as the user wrote it (also the rule's name in messages). */
  source: string;
  regex: RegExp;
}

export interface AlertMatch {
  rule: string;
  /** 0-based line and UTF-16 columns, as VS Code positions count them. */
  line: number;
  start: number;
  end: number;
}

/** The rules that compile; the others are returned with the reason, for one warning. */
export function compileAlertRules(patterns: readonly unknown[]): { rules: AlertRule[]; invalid: string[] } {
  const rules: AlertRule[] = [];
  const invalid: string[] = [];
  for (const p of patterns) {
    if (typeof p !== 'string' || p === '') continue;
    try {
      rules.push({ source: p, regex: new RegExp(p, 'g') });
    } catch (e) {
      invalid.push(`${p}: ${messageOf(e)}`);
    }
  }
  return { rules, invalid };
}

/** At most this many matches are kept per document (a loop printing NaN must not grow memory). */
const MAX_MATCHES = 10_000;
/** Lines longer than this are searched in their first part only (a regex on a 100 MB line stalls). */
const MAX_LINE = 64 * 1024;

/**
 * Scans text appended to a document. Text may end mid-line: that part is kept and scanned once its
 * line is complete (or at `flush`), so a match is never split across two appends nor found twice.
 */
export class AlertScanner {
  readonly matches: AlertMatch[] = [];
  private line = 0;
  private pending = '';

  constructor(private readonly rules: readonly AlertRule[]) {}

  /** Scans `text`; returns the matches it added. */
  append(text: string): AlertMatch[] {
    if (this.rules.length === 0) return [];
    const all = this.pending + text;
    const lines = all.split('\n');
    this.pending = lines.pop() ?? '';
    return this.scanLines(lines);
  }

  /** The output ended: the last line, without its newline, is complete too. */
  flush(): AlertMatch[] {
    if (this.pending === '') return [];
    const last = [this.pending];
    this.pending = '';
    return this.scanLines(last);
  }

  private scanLines(lines: string[]): AlertMatch[] {
    const added: AlertMatch[] = [];
    for (const raw of lines) {
      const text = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw.replace(/\r$/, '');
      for (const rule of this.rules) {
        rule.regex.lastIndex = 0;
        for (let m = rule.regex.exec(text); m; m = rule.regex.exec(text)) {
          if (m[0] === '') {
            rule.regex.lastIndex++;
            continue;
          }
          if (this.matches.length >= MAX_MATCHES) break;
          const match = { rule: rule.source, line: this.line, start: m.index, end: m.index + m[0].length };
          this.matches.push(match);
          added.push(match);
        }
      }
      this.line++;
    }
    return added;
  }
}
