/**
 * THE sbatch parser: reads a batch script's `#SBATCH` lines the way sbatch does. Only the header
 * counts (the shebang, then comments and blank lines; the first command ends it); each line is
 * split like sbatch splits it (whitespace, double quotes, `#` starting a comment) and read with
 * getopt_long rules (`--time=1:00`, `--time 1:00`, `-t 1:00`, `-t1:00`, unique prefixes such as
 * `--part`). Diagnostics, completion, hover, Submit and Resubmit all use this one function.
 */
import { optionByShort, resolveLong, type SbatchOption } from './options';
import { readTypedValue } from './typedValue';
import type { ParseProblem, SbatchDirective, SbatchScript, Span } from './types';

/** A word of a directive line: text without quotes, raw position on the line. */
interface Token {
  text: string;
  start: number;
  end: number;
  quoted: boolean;
}

/** Parses the whole script text. Cheap (one pass); callers may run it on every change. */
export function parseSbatchScript(text: string): SbatchScript {
  const directives: SbatchDirective[] = [];
  const problems: ParseProblem[] = [];
  let hasDirectives = false;
  let firstCommandLine: number | undefined;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].endsWith('\r') ? lines[n].slice(0, -1) : lines[n];
    if (n === 0 && line.startsWith('#!')) continue;
    if (line.startsWith('#SBATCH')) {
      const span: Span = { line: n, start: 0, end: 7 };
      if (firstCommandLine !== undefined) {
        problems.push(warn(span, `sbatch ignores this line: it comes after the first command (line ${firstCommandLine + 1}).`));
        continue;
      }
      hasDirectives = true;
      readLine(n, line, directives, problems);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      const col = line.indexOf('#');
      if (firstCommandLine === undefined && /^#\s*sbatch\b/i.test(trimmed)) {
        // Looks like a directive but is not one: sbatch wants `#SBATCH` upper case at column 1.
        const end = col + (/^#\s*sbatch/i.exec(trimmed)?.[0].length ?? 1);
        problems.push(warn({ line: n, start: col, end }, `sbatch ignores this line: a directive must start with '#SBATCH' at the beginning of the line.`));
      }
      continue;
    }
    firstCommandLine ??= n;
  }
  // An option given twice: sbatch quietly takes the last one, which is rarely what was meant.
  for (const d of directives) {
    const later = d.option && directives.findLast((x) => x.name === d.name);
    if (later && later !== d) {
      problems.push({ code: 'repeated-option', severity: 'warning', span: d.nameSpan, message: `--${d.name} is given again on line ${later.nameSpan.line + 1}: sbatch uses that one and ignores this.` });
    }
  }
  return {
    directives,
    problems,
    hasDirectives,
    firstCommandLine,
    last: (name) => directives.findLast((d) => d.name === name),
  };
}

function warn(span: Span, message: string): ParseProblem {
  return { code: 'directive-ignored', severity: 'warning', span, message };
}

function error(code: ParseProblem['code'], span: Span, message: string): ParseProblem {
  return { code, severity: 'error', span, message };
}

/** Splits the arguments after `#SBATCH` like sbatch: whitespace, double quotes, `#` comment. */
function tokenize(line: string, from: number): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i])) i++;
    if (i >= line.length || line[i] === '#') break;
    const start = i;
    let text = '';
    let inQuote = false;
    let quoted = false;
    while (i < line.length && (inQuote || !/\s/.test(line[i]))) {
      if (line[i] === '"') {
        inQuote = !inQuote;
        quoted = true;
      } else {
        text += line[i];
      }
      i++;
    }
    tokens.push({ text, start, end: i, quoted });
  }
  return tokens;
}

function readLine(n: number, line: string, out: SbatchDirective[], problems: ParseProblem[]): void {
  const tokens = tokenize(line, 7);
  const lineEnd = tokens.length ? tokens[tokens.length - 1].end : 7;
  const lineSpan: Span = { line: n, start: 0, end: lineEnd };
  const at = (start: number, end: number): Span => ({ line: n, start, end });
  if (tokens.length === 0) {
    problems.push(error('missing-value', at(0, 7), 'An #SBATCH line without an option.'));
    return;
  }
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t];
    const next = tokens[t + 1];
    if (tok.text.startsWith('--') && tok.text.length > 2) {
      const eq = tok.text.indexOf('=');
      const written = eq >= 0 ? tok.text.slice(0, eq) : tok.text;
      const nameSpan = at(tok.start, tok.start + written.length);
      const { option, ambiguous } = resolveLong(written.slice(2));
      if (!option) {
        problems.push(ambiguous
          ? error('ambiguous-directive', nameSpan, `'${written}' is ambiguous: it could be ${ambiguous.map((a) => `--${a}`).join(', ')}.`)
          : error('unknown-directive', nameSpan, `sbatch has no option '${written}'.`));
        if (eq < 0 && next && !next.text.startsWith('-')) t++; // skip its probable value
        continue;
      }
      const d: SbatchDirective = { lineSpan, written, nameSpan, name: option.long, option };
      if (eq >= 0) {
        if (option.arg === 'none') problems.push(error('unexpected-value', at(tok.start + eq, tok.end), `--${option.long} takes no value.`));
        else setValue(d, tok.text.slice(eq + 1), at(tok.start + eq + 1, tok.end), tok.quoted, problems);
      } else if (option.arg === 'required') {
        // getopt takes the next word as the value, even when it starts with '-'.
        if (next) {
          setValue(d, next.text, at(next.start, next.end), next.quoted, problems);
          t++;
        } else {
          problems.push(error('missing-value', nameSpan, `--${option.long} needs a value${option.placeholder ? ` (${option.placeholder})` : ''}.`));
        }
      }
      out.push(d);
    } else if (tok.text.startsWith('-') && tok.text.length > 1 && tok.text !== '--') {
      if (readShortCluster(tok, next, lineSpan, at, out, problems)) t++;
    } else {
      problems.push(error('stray-argument', at(tok.start, tok.end), `'${tok.text}' is not an option: write --name=value or -x value.`));
    }
  }
}

/** `-t1:00`, `-t 1:00`, `-Hv` (flags together). Returns true when the next token was consumed. */
function readShortCluster(
  tok: Token,
  next: Token | undefined,
  lineSpan: Span,
  at: (s: number, e: number) => Span,
  out: SbatchDirective[],
  problems: ParseProblem[],
): boolean {
  for (let i = 1; i < tok.text.length; i++) {
    const letter = tok.text[i];
    const nameSpan = at(tok.start + i - 1, tok.start + i + 1);
    const option: SbatchOption | undefined = optionByShort(letter);
    if (!option) {
      problems.push(error('unknown-directive', nameSpan, `sbatch has no option '-${letter}'.`));
      return false;
    }
    const d: SbatchDirective = { lineSpan, written: `-${letter}`, nameSpan, name: option.long, option };
    out.push(d);
    if (option.arg === 'none') continue;
    const rest = tok.text.slice(i + 1);
    const restSpan = at(tok.start + i + 1, tok.end);
    if (rest !== '') {
      if (rest.startsWith('=')) {
        // getopt keeps the '=' in the value of a short option: sbatch would read '=1:00'.
        problems.push(error('malformed-value', restSpan, `sbatch reads '${rest}' as the value of -${letter}: write -${letter} ${rest.slice(1)} or --${option.long}${rest}.`));
        d.value = rest.slice(1);
        d.valueSpan = at(restSpan.start + 1, restSpan.end);
      } else {
        setValue(d, rest, restSpan, tok.quoted, problems);
      }
      return false;
    }
    if (option.arg === 'optional') return false;
    if (!next) {
      problems.push(error('missing-value', nameSpan, `-${letter} (--${option.long}) needs a value${option.placeholder ? ` (${option.placeholder})` : ''}.`));
      return false;
    }
    setValue(d, next.text, at(next.start, next.end), next.quoted, problems);
    return true;
  }
  return false;
}

function setValue(d: SbatchDirective, value: string, span: Span, quoted: boolean, problems: ParseProblem[]): void {
  d.value = value;
  d.valueSpan = span;
  if (!d.option) return;
  if (value === '' && d.option.arg === 'required') {
    problems.push(error('missing-value', span.start === span.end ? d.nameSpan : span, `--${d.option.long} needs a value${d.option.placeholder ? ` (${d.option.placeholder})` : ''}.`));
    return;
  }
  const r = readTypedValue(d.option.kind, value, span, quoted);
  if (r.ok) d.typed = r.value;
  else problems.push(error('malformed-value', span, `--${d.option.long}: ${r.reason}.`));
}
