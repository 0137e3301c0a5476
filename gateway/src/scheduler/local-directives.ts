/**
 * The part of `sbatch` the built-in scheduler imitates: reading `#SBATCH` directives from a job
 * script, parsing `--time` values and expanding output file name patterns such as `slurm-%j.out`.
 */

/** The directives the local scheduler acts on; everything else in `#SBATCH` lines is ignored. */
export interface Directives {
  name?: string;
  output?: string;
  error?: string;
  input?: string;
  time?: string;
  chdir?: string;
  partition?: string;
  account?: string;
  reservation?: string;
  dependency?: string;
  constraint?: string;
  array?: string;
}

type Key = keyof Directives;

const LONG: Record<string, Key> = {
  'job-name': 'name', output: 'output', error: 'error', input: 'input', time: 'time', chdir: 'chdir',
  partition: 'partition', account: 'account', reservation: 'reservation', dependency: 'dependency',
  constraint: 'constraint', array: 'array',
};
const SHORT: Record<string, Key> = {
  J: 'name', o: 'output', e: 'error', i: 'input', t: 'time', D: 'chdir', p: 'partition', A: 'account',
  d: 'dependency', C: 'constraint', a: 'array',
};

/** Splits a directive line the way a shell would (quotes group, `#` starts a comment). */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let inToken = false;
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inToken = true;
    } else if (/\s/.test(ch)) {
      if (inToken) tokens.push(cur);
      cur = '';
      inToken = false;
    } else if (ch === '#' && !inToken) {
      break;
    } else {
      cur += ch;
      inToken = true;
    }
  }
  if (inToken) tokens.push(cur);
  return tokens;
}

/**
 * Reads `#SBATCH` lines up to the first command line, like sbatch does: blank lines and other
 * comments (the shebang included) are skipped, the first line that is neither ends the search.
 * A later directive for the same option wins, as it does in sbatch.
 */
export function parseDirectives(script: string): Directives {
  const found: Directives = {};
  for (const raw of script.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const m = /^#SBATCH\s+(.*)$/.exec(line);
    if (!m) continue;
    const tokens = tokenize(m[1]);
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i];
      if (tok.startsWith('--')) {
        const eq = tok.indexOf('=');
        const key = LONG[eq >= 0 ? tok.slice(2, eq) : tok.slice(2)];
        if (!key) continue;
        if (eq >= 0) found[key] = tok.slice(eq + 1);
        else if (i + 1 < tokens.length) found[key] = tokens[++i];
      } else if (tok.startsWith('-') && tok.length >= 2) {
        const key = SHORT[tok[1]];
        if (!key) continue;
        if (tok.length > 2) found[key] = tok.slice(2).replace(/^=/, '');
        else if (i + 1 < tokens.length) found[key] = tokens[++i];
      }
    }
  }
  return found;
}

/**
 * Parses an sbatch `--time` value into seconds: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`.
 * `null` means unlimited (`INFINITE`/`UNLIMITED`); `undefined` means the value is not valid.
 * Seconds are kept exactly (Slurm rounds up to whole minutes) so short limits can be tested.
 */
export function parseTimeLimit(value: string): number | null | undefined {
  const v = value.trim();
  if (/^(infinite|unlimited)$/i.test(v)) return null;
  const nums = (parts: string[]): number[] | undefined =>
    parts.every((p) => /^\d+$/.test(p)) ? parts.map((p) => Number(p)) : undefined;
  const dash = /^(\d+)-(.+)$/.exec(v);
  if (dash) {
    const rest = nums(dash[2].split(':'));
    if (!rest || rest.length > 3) return undefined;
    const [h, m = 0, s = 0] = rest;
    return ((Number(dash[1]) * 24 + h) * 60 + m) * 60 + s;
  }
  const parts = nums(v.split(':'));
  if (!parts || parts.length > 3) return undefined;
  if (parts.length === 1) return parts[0] * 60;
  if (parts.length === 2) return parts[0] * 60 + parts[1];
  return (parts[0] * 60 + parts[1]) * 60 + parts[2];
}

export interface PatternVars {
  jobId: string;
  jobName: string;
  user: string;
  node: string;
  /** For an array task: the array's id and the task's index. */
  arrayJobId?: string;
  arrayTaskId?: string;
}

/** Slurm's array index for a job that is not part of an array (NO_VAL - 1). */
const NO_ARRAY_INDEX = '4294967294';

/**
 * Expands the filename pattern letters sbatch knows (`%j %x %u %A %a %N %n %t %s %%`), with an
 * optional zero-padding width (`%5j`); unknown letters are left as they are.
 */
export function expandPattern(pattern: string, vars: PatternVars): string {
  return pattern.replace(/%(\d*)([a-zA-Z%])/g, (whole, width: string, letter: string) => {
    const values: Record<string, string> = {
      j: vars.jobId, A: vars.arrayJobId ?? vars.jobId, a: vars.arrayTaskId ?? NO_ARRAY_INDEX, x: vars.jobName, u: vars.user, N: vars.node,
      n: '0', t: '0', s: 'batch',
    };
    if (letter === '%') return '%';
    const val = values[letter];
    if (val === undefined) return whole;
    const n = width ? Number(width) : 0;
    return /^\d+$/.test(val) && n > 0 ? val.padStart(Math.min(n, 10), '0') : val;
  });
}

/** Slurm's MaxArraySize default: indexes run from 0 to 1000. */
export const MAX_ARRAY_INDEX = 1000;

/**
 * `--array` as sbatch reads it: `0-9`, `1,3,5`, `0-20:4`, with `%N` to run at most N tasks at
 * once. Indexes are sorted and unique; undefined when the text is not a valid array.
 */
export function parseArraySpec(text: string): { indexes: number[]; limit: number | null } | undefined {
  const m = /^([^%]+)(?:%(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const limit = m[2] === undefined ? null : Number(m[2]);
  if (limit !== null && limit < 1) return undefined;
  const out = new Set<number>();
  for (const part of m[1].split(',')) {
    const r = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!r) return undefined;
    const from = Number(r[1]);
    const to = r[2] === undefined ? from : Number(r[2]);
    const step = r[3] === undefined ? 1 : Number(r[3]);
    if (to < from || step < 1 || to > MAX_ARRAY_INDEX) return undefined;
    for (let i = from; i <= to; i += step) out.add(i);
  }
  return { indexes: [...out].sort((a, b) => a - b), limit };
}
