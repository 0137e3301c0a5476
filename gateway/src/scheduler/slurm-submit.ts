/**
 * The `sbatch` command line for a v2 job description, and reading its answer.
 */
import type { JobSpec } from './types';
import { SchedulerError, checkJobEnv } from './types';

export interface SbatchCall {
  argv: string[];
  /** Variables handed to sbatch through its own environment (see `sbatchCall`). */
  env: Record<string, string>;
  stdin?: string;
}

/**
 * `--export=ALL,K=V,...` cannot carry a value containing a comma or a quote: sbatch splits the
 * list on commas. Such variables are put in sbatch's own environment instead and listed by name
 * only (`--export=ALL,K`), which sbatch documents as "take the value from the environment".
 */
export function sbatchCall(spec: JobSpec): SbatchCall {
  const argv = ['sbatch', '--parsable', `--chdir=${spec.workingDirectory}`];
  const opt = (flag: string, v: string | undefined): void => { if (v) argv.push(`--${flag}=${v}`); };
  opt('job-name', spec.name);
  opt('account', spec.account);
  opt('partition', spec.partition);
  opt('reservation', spec.reservation);
  opt('input', spec.standardInput);
  opt('output', spec.standardOutput);
  opt('error', spec.standardError);
  opt('constraint', spec.constraints);
  if (spec.timeLimitMinutes !== undefined) argv.push(`--time=${Math.max(1, Math.ceil(spec.timeLimitMinutes))}`);
  if (spec.afterOk) argv.push(`--dependency=afterok:${spec.afterOk}`);

  const exports = ['ALL'];
  const env: Record<string, string> = {};
  checkJobEnv(spec.env);
  for (const [k, v] of Object.entries(spec.env)) {
    if (/[,"'\n]/.test(v)) {
      env[k] = v;
      exports.push(k);
    } else {
      exports.push(`${k}=${v}`);
    }
  }
  argv.push(`--export=${exports.join(',')}`);

  if (spec.scriptPath) {
    argv.push(spec.scriptPath);
    return { argv, env };
  }
  if (spec.script === undefined) throw new SchedulerError('Either script or scriptPath is required.', 400);
  return { argv, env, stdin: spec.script };
}

/** `--parsable` prints `<id>` or `<id>;<cluster>`. */
export function parseSbatchId(stdout: string): string | undefined {
  const m = /^(\d+)(?:;\S+)?\s*$/m.exec(stdout.trim());
  return m?.[1];
}

/** The status the real server answers a refused submission with. */
export function submitStatus(stderr: string): number {
  if (/accounting\/QOS policy|QOSMax\w*Limit|AssocMax\w*Limit/i.test(stderr)) return 403;
  if (/auth.*token|invalid.*jwt/i.test(stderr)) return 400;
  return 500;
}
