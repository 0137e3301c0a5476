/**
 * Runs one filesystem command as the user like the real server runs it over SSH (`timeout N`, output
 * capped at `max_ops_file_size`) and turns a failure into the error the real server answers with.
 */
import { constants } from 'node:os';
import { runAs, type RunResult } from '../exec';
import { ApiError } from '../http/errors';
import type { GatewaySettings } from '../runtime';
import type { UnixUser } from '../users';

export interface RemoteOptions {
  stdin?: Buffer;
  /** Output cap override (download reads one byte past the limit to tell "too large" apart). */
  maxOutputBytes?: number;
  /** The exit status and text a failure is reported with (default: as run, stderr), e.g. to speak like `ls`. */
  describeFailure?: (failure: { code: number; stderr: string; stdout: string }) => { code: number; text: string };
}

/**
 * The real server's classification of a failed remote command: 124 is the `timeout` wrapper,
 * otherwise the stderr text decides; the message format is the same for every status.
 */
export function remoteError(exitCode: number, stderr: string): ApiError {
  const text = stderr.trim();
  const message = `Remote process failed with exit status:${exitCode}${text ? ` and error message:${text}` : ''}`;
  if (exitCode === 124) return new ApiError(408, message);
  if (text.includes('No such file or directory')) return new ApiError(404, message);
  if (text.includes('Permission denied') || text.includes('Operation not permitted')) return new ApiError(403, message);
  if (text.includes('File exists') || text.includes('invalid user')) return new ApiError(400, message);
  return new ApiError(500, message);
}

/** Runs `argv` as `user`; resolves with the result of a successful run, throws ApiError otherwise. */
export async function runRemote(user: UnixUser, argv: string[], settings: GatewaySettings, opts: RemoteOptions = {}): Promise<RunResult> {
  const result = await runAs(user, argv, {
    timeoutSeconds: settings.commandTimeoutSeconds,
    maxOutputBytes: opts.maxOutputBytes ?? settings.maxOpsFileSize,
    stdin: opts.stdin,
  });
  if (result.outputExceeded) throw new ApiError(413, 'Command output exceeded buffer limit.');
  if (result.exitCode !== 0) {
    const stderr = result.stderr.toString('utf8');
    // A process killed by a signal has no exit status; report it like a shell would (128 + n).
    const code = result.exitCode ?? 128 + signalNumber(result.signal);
    const failure = opts.describeFailure?.({ code, stderr, stdout: result.stdout.toString('utf8') }) ?? { code, text: stderr };
    throw remoteError(failure.code, failure.text);
  }
  return result;
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? constants.signals[signal] : 0;
}
