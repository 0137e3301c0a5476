/**
 * Runs one utilities command as the user, the way the v1 server runs it over SSH: argv only, wrapped
 * in `timeout UTILITIES_TIMEOUT`, output capped; a failure becomes the v1 error with its `X-*` header.
 */
import { runAs, type RunResult } from '../exec';
import type { UnixUser } from '../users';
import type { GatewaySettings } from '../v2/context';
import { commandError, V1Error } from './errors';

export interface V1RunOptions {
  stdin?: Buffer;
  maxOutputBytes?: number;
  /** head/tail with a pattern: exit 1 and no stderr means "pattern not found". */
  grep?: boolean;
  /** The failure text from stderr and stdout (default: stderr). */
  stderrText?: (stderr: string, stdout: string) => string;
}

export async function runV1(user: UnixUser, argv: string[], command: string, settings: GatewaySettings, opts: V1RunOptions = {}): Promise<RunResult> {
  const result = await runAs(user, argv, {
    timeoutSeconds: settings.commandTimeoutSeconds,
    maxOutputBytes: opts.maxOutputBytes ?? settings.maxOpsFileSize + 1,
    stdin: opts.stdin,
  });
  if (result.outputExceeded) {
    throw new V1Error(400, { description: `Error on ${command} operation`, error: 'Output exceeds the size limit' }, { 'X-Size-Limit': 'File exceeds size limit' });
  }
  if (result.exitCode !== 0) {
    const stderr = result.stderr.toString('utf8');
    const text = opts.stderrText ? opts.stderrText(stderr, result.stdout.toString('utf8')) : stderr;
    throw commandError(command, result.exitCode ?? 1, text, opts.grep);
  }
  return result;
}

/** Size in bytes of a file as the user sees it (the size check of view/download). */
export async function fileSize(user: UnixUser, path: string, command: string, settings: GatewaySettings): Promise<number> {
  const out = await runV1(user, ['stat', '-L', '-c', '%s', '--', path], command, settings);
  return Number(out.stdout.toString('utf8').trim());
}
