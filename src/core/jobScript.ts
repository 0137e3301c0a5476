/**
 * Options that go into a job's script as `#SBATCH` lines, where the API has no field for them (v1
 * for most; v2 for `--dependency`). The values become lines of a script: they are checked first.
 */
import { InvalidInputError } from './errors';

/** Puts `lines` right after the shebang, where sbatch still reads directives. */
export function withDirectives(script: string, lines: string[]): string {
  if (!lines.length) return script;
  const nl = script.indexOf('\n');
  if (script.startsWith('#!')) return nl < 0 ? `${script}\n${lines.join('\n')}\n` : `${script.slice(0, nl + 1)}${lines.join('\n')}\n${script.slice(nl + 1)}`;
  return `#!/bin/bash\n${lines.join('\n')}\n${script}`;
}

/**
 * Slurm's `--dependency` forms: `singleton`, or `<type>:<id>[:<id>…]` (types after, afterany,
 * afterok, afternotok, aftercorr, afterburstbuffer; `after` also takes `+<minutes>`), joined by `,`
 * (all) or `?` (any). Anything else (a line break above all) is refused before it reaches a script.
 */
const DEPENDENCY = /^(singleton|(after|afterany|afterok|afternotok|aftercorr|afterburstbuffer)(:\d+(_\d+)?(\+\d+)?)+)([,?](singleton|(after|afterany|afterok|afternotok|aftercorr|afterburstbuffer)(:\d+(_\d+)?(\+\d+)?)+))*$/;

export function checkDependency(value: string): string {
  const v = value.trim();
  if (!DEPENDENCY.test(v)) throw new InvalidInputError(`Not a Slurm dependency: "${value.slice(0, 80)}" (for example afterok:123, afterany:123:124, singleton)`);
  return v;
}

/** The job ids a dependency names, with its type: `afterok:12:13,afterany:14` -> [[afterok, 12], [afterok, 13], [afterany, 14]]. */
export function dependencyTargets(value: string): { type: string; jobId: string }[] {
  const out: { type: string; jobId: string }[] = [];
  for (const part of value.split(/[,?]/)) {
    const [type, ...ids] = part.split(':');
    for (const id of ids) out.push({ type, jobId: id.replace(/\+\d+$/, '') });
  }
  return out;
}
