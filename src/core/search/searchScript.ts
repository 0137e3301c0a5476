/**
 * The batch script of a search on the cluster. Everything the user typed (query, globs, folder)
 * reaches the search tools as separate arguments, each made one shell word by `shellQuote`; no
 * user text is ever part of shell syntax. The script writes its matches to a file the client
 * reads by byte offset while the job runs:
 *
 *   <path> NUL <line>:<text> LF          one match (a path may hold any byte but NUL)
 *   NUL F7T-TOOL <grep|rg> LF            which tool searched
 *   NUL F7T-FILES <n> LF                 n more files searched (grep only)
 *   NUL F7T-END <status> <find-status> LF  the search ended (the last record)
 *
 * A record with an empty path is the script's own: no file has an empty name.
 */
import { SIDECAR_FILE_PREFIX } from '../sidecar/sidecar';
import { shellQuote } from '../shellQuote';

export interface SearchQuery {
  /** Absolute folder on the cluster. */
  root: string;
  pattern: string;
  /** A regular expression (POSIX ERE for grep, Rust syntax for rg); else a literal. */
  regex?: boolean;
  matchCase?: boolean;
  wholeWord?: boolean;
  /** Globs of files to search (any of them); `*.py` matches at any depth, `src/*.py` from the root. */
  include?: string[];
  /** Globs of files and folders to leave out. */
  exclude?: string[];
  /** Files larger than this many bytes are skipped (default 16 MiB). */
  maxFileSize?: number;
  /** The search stops after this many matches (default 10,000). */
  maxResults?: number;
  /**
   * List the files instead of searching them (Go to File): every file the globs and limits let
   * through is one record `<path> NUL 0: LF`; `pattern` is not used.
   */
  filesOnly?: boolean;
}

export type SearchTool = 'grep' | 'rg';

export interface SearchScriptOptions {
  /** Absolute paths of the match and error files. */
  outputPath: string;
  errorPath: string;
  /** Folder the two files go in (created by the script). */
  scratchDir: string;
  /** `auto`: rg where the system has it, else grep. */
  tool: SearchTool | 'auto';
  timeLimitMinutes: number;
}

/** A side-car's folder: searches leave them out. */
export const SEARCH_FILE_PREFIX = SIDECAR_FILE_PREFIX;
export const DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024;
export const DEFAULT_MAX_RESULTS = 10_000;
/** Longer queries are refused before anything is submitted (argument lists have limits too). */
export const MAX_PATTERN_BYTES = 4096;
const MAX_GLOBS = 64;

/** Why the query cannot be searched for, or undefined when it can. */
export function invalidQuery(q: SearchQuery): string | undefined {
  if (q.filesOnly) return invalidFolder(q);
  if (q.pattern === '') return 'The search text is empty.';
  if (q.pattern.includes('\0')) return 'The search text holds a NUL character, which no search tool can take.';
  if (/[\r\n]/.test(q.pattern)) return 'The search text holds a line break; Search on Cluster matches within one line.';
  if (Buffer.byteLength(q.pattern) > MAX_PATTERN_BYTES) return `The search text is longer than ${MAX_PATTERN_BYTES} bytes.`;
  return invalidFolder(q);
}

function invalidFolder(q: SearchQuery): string | undefined {
  if (!q.root.startsWith('/')) return `The folder must be an absolute path: ${q.root}`;
  if (q.root.includes('\0')) return 'The folder path holds a NUL character.';
  for (const g of [...(q.include ?? []), ...(q.exclude ?? [])]) {
    if (g.includes('\0') || /[\r\n]/.test(g)) return `A glob holds a NUL or a line break: ${JSON.stringify(g)}`;
  }
  if ((q.include?.length ?? 0) + (q.exclude?.length ?? 0) > MAX_GLOBS) return `More than ${MAX_GLOBS} globs.`;
  return undefined;
}

/** Globs as typed: trimmed, without empty ones and without a leading `./`. */
export function cleanGlobs(globs: string[] | undefined): string[] {
  return (globs ?? []).map((g) => g.trim().replace(/^\.\//, '')).filter((g) => g !== '' && g !== '!');
}

/** `root` as a literal `find -path` pattern prefix (its own `*?[]\` escaped). */
function fnmatchLiteral(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** A glob as `find` tests: the base name when it has no `/`, else the path from the root (`**` is `*`, which crosses `/` there). */
function findTest(root: string, glob: string): string {
  const g = glob.replace(/\/+$/, '');
  if (!g.includes('/')) return `-name ${shellQuote(g)}`;
  const rel = g.replace(/^\*\*\//, '*/').replace(/\/\*\*\//g, '/*/').replace(/\/\*\*$/, '/*').replace(/^\//, '');
  const start = rel.startsWith('*/') ? `${fnmatchLiteral(root.replace(/\/+$/, ''))}/*` : `${fnmatchLiteral(root.replace(/\/+$/, ''))}/`;
  return `-path ${shellQuote(start + (rel.startsWith('*/') ? rel.slice(2) : rel))}`;
}

/** The grep flags of the query: only fixed option letters, never user text. */
function grepFlags(q: SearchQuery): string {
  return ['-nHZI', '--color=never', q.regex ? '-E' : '-F', q.matchCase ? '' : '-i', q.wholeWord ? '-w' : ''].filter(Boolean).join(' ');
}

function rgArgs(q: SearchQuery, maxFileSize: number): string[] {
  const args = ['--null', '--line-number', '--with-filename', '--no-heading', '--color', 'never', '--no-ignore', '--hidden', '--no-config', '--max-filesize', String(maxFileSize - 1)];
  if (!q.regex) args.push('--fixed-strings');
  args.push(q.matchCase ? '--case-sensitive' : '--ignore-case');
  if (q.wholeWord) args.push('--word-regexp');
  for (const g of ['.git', `${SEARCH_FILE_PREFIX}*`]) args.push('--glob', shellQuote(`!${g}`));
  for (const g of cleanGlobs(q.include)) args.push('--glob', shellQuote(g));
  for (const g of cleanGlobs(q.exclude)) args.push('--glob', shellQuote(`!${g}`));
  return args;
}

/** The whole batch script (bash). */
export function searchScript(q: SearchQuery, o: SearchScriptOptions): string {
  const maxFileSize = q.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  // head stops the tools once the client can have no use for more lines (the client cancels at
  // the cap; this bounds a search nobody reads any more).
  const maxLines = (q.maxResults ?? DEFAULT_MAX_RESULTS) + 1000;
  const root = q.root.length > 1 ? q.root.replace(/\/+$/, '') : q.root;
  const prune = ['.git', `${SEARCH_FILE_PREFIX}*`].map((g) => `-name ${shellQuote(g)}`)
    .concat(cleanGlobs(q.exclude).map((g) => findTest(root, g)));
  const include = cleanGlobs(q.include).map((g) => findTest(root, g));
  const findArgs = [
    '-P', '"$root"',
    `\\( ${prune.join(' -o ')} \\) -prune -o`,
    '-type f',
    include.length ? `\\( ${include.join(' -o ')} \\)` : '',
    // A listing names big files too; a search skips them.
    q.filesOnly ? '' : `-size -${maxFileSize}c`,
  ].filter(Boolean).join(' ');
  // grep's status 1 is "no match in this batch": not an error. xargs answers 123 when any batch
  // ended 1-125, so each batch turns 1 into 0 and keeps 2 (files it could not read).
  const batch = `grep ${grepFlags(q)} -e "$0" -- "$@"; s=$?; printf '\\0F7T-FILES %d\\n' "$#"; [ "$s" -le 1 ] || exit "$s"`;
  return [
    '#!/bin/bash',
    '#SBATCH --job-name=f7t-search',
    '#SBATCH --ntasks=1',
    '#SBATCH --cpus-per-task=1',
    `#SBATCH --time=${Math.max(1, Math.ceil(o.timeLimitMinutes))}`,
    '#SBATCH --output=/dev/null',
    '#SBATCH --error=/dev/null',
    `root=${shellQuote(root)}`,
    `pattern=${shellQuote(q.pattern)}`,
    `out=${shellQuote(o.outputPath)}`,
    `err=${shellQuote(o.errorPath)}`,
    `tool=${shellQuote(o.tool)}`,
    // Cancelled (scancel's SIGTERM) while starting or running: the job takes its files along,
    // also those it opened after the client removed them (CI17).
    'trap \'rm -f -- "$out" "$err"; exit 143\' TERM INT',
    'umask 077',
    `mkdir -p -- ${shellQuote(o.scratchDir)} 2>/dev/null`,
    'exec >"$out" 2>"$err" || exit 1',
    'end() { printf \'\\0F7T-END %s %s\\n\' "$1" "$2"; exit 0; }',
    'if [ ! -d "$root" ]; then echo "No such folder: $root" >&2; end 3 0; fi',
    'if [ ! -r "$root" ] || [ ! -x "$root" ]; then echo "Permission denied: $root" >&2; end 4 0; fi',
    ...(q.filesOnly ? [
      // Two -printf actions: `\\0` followed by a digit in one format would read as an octal escape.
      'printf \'\\0F7T-TOOL find\\n\'',
      `find ${findArgs} -printf '%p\\0' -printf '0:\\n' | head -n ${maxLines}`,
      'end "${PIPESTATUS[0]}" 0',
    ] : []),
    'if [ "$tool" = auto ]; then if command -v rg >/dev/null 2>&1; then tool=rg; else tool=grep; fi; fi',
    'printf \'\\0F7T-TOOL %s\\n\' "$tool"',
    'if [ "$tool" = rg ]; then',
    `  rg ${rgArgs(q, maxFileSize).join(' ')} --regexp "$pattern" -- "$root" | head -n ${maxLines}`,
    '  end "${PIPESTATUS[0]}" 0',
    'fi',
    `find ${findArgs} -print0 | xargs -0 -r bash -c ${shellQuote(batch)} "$pattern" | head -n ${maxLines}`,
    'end "${PIPESTATUS[1]}" "${PIPESTATUS[0]}"',
    '',
  ].join('\n');
}
