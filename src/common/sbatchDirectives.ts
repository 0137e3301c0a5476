/**
 * Reads the `#SBATCH` directives of a batch script, the way sbatch does: only the comment block
 * before the first command counts. Small on purpose (the options Submit Job asks about); a later
 * issue extends it into the full sbatch parser, so it keeps every option it sees in `options`.
 */

export interface SbatchDirectives {
  partition?: string;
  account?: string;
  reservation?: string;
  chdir?: string;
  jobName?: string;
  /** Every directive by long option name (`time`, `nodes`, ...), last one wins like sbatch. */
  options: Map<string, string | true>;
  /** True when the script has at least one `#SBATCH` line. */
  hasDirectives: boolean;
}

/** Short options that take a value, mapped to their long names. */
const SHORT: Record<string, string> = {
  p: 'partition', A: 'account', D: 'chdir', J: 'job-name', t: 'time', N: 'nodes', n: 'ntasks',
  c: 'cpus-per-task', o: 'output', e: 'error', q: 'qos', C: 'constraint', w: 'nodelist',
};

export function parseSbatchDirectives(script: string): SbatchDirectives {
  const options = new Map<string, string | true>();
  let hasDirectives = false;
  for (const raw of script.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break; // sbatch stops at the first command
    const m = /^#SBATCH\s+(.*)$/.exec(line);
    if (!m) continue;
    hasDirectives = true;
    for (const [k, v] of parseWords(stripComment(m[1]))) options.set(k, v);
  }
  const str = (k: string): string | undefined => {
    const v = options.get(k);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  return {
    partition: str('partition'),
    account: str('account'),
    reservation: str('reservation'),
    chdir: str('chdir'),
    jobName: str('job-name'),
    options,
    hasDirectives,
  };
}

/** True when the text looks like a batch script worth offering Submit for. */
export function hasSbatchDirectives(script: string): boolean {
  return /^#SBATCH\s/m.test(script);
}

function stripComment(s: string): string {
  // A `#` after whitespace starts a trailing comment, as in sbatch.
  const i = s.search(/\s#/);
  return i >= 0 ? s.slice(0, i) : s;
}

function parseWords(s: string): [string, string | true][] {
  const words = s.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  const unq = (w: string) => w.replace(/^(["'])(.*)\1$/, '$2');
  const out: [string, string | true][] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      if (eq > 0) out.push([w.slice(2, eq), unq(w.slice(eq + 1))]);
      else if (i + 1 < words.length && !words[i + 1].startsWith('-')) out.push([w.slice(2), unq(words[++i])]);
      else out.push([w.slice(2), true]);
    } else if (/^-[A-Za-z]/.test(w)) {
      const long = SHORT[w[1]] ?? w[1];
      if (w.length > 2) out.push([long, unq(w.slice(w[2] === '=' ? 3 : 2))]);
      else if (i + 1 < words.length && !words[i + 1].startsWith('-')) out.push([long, unq(words[++i])]);
      else out.push([long, true]);
    }
  }
  return out;
}
