/**
 * Batch scripts of the transfer jobs (mv, cp, rm, compress, extract). The command is built as argv and
 * every word is quoted, so a path chosen by a user is only ever a word. On success the job prints the
 * line the clients look for in the output log; on failure the tool's own stderr lands in the error log,
 * followed by a summary, and the job exits non-zero so the scheduler records it as FAILED.
 */
import { ApiError } from '../http/errors';
import { shellCommand } from './shell-quote';

export type TransferKind = 'move' | 'copy' | 'delete' | 'compress' | 'extract';

const DONE: Record<TransferKind, { verb: string; done: string; jobName: string }> = {
  move: { verb: 'move', done: 'moved', jobName: 'MoveFiles' },
  copy: { verb: 'copy', done: 'copied', jobName: 'CopyFiles' },
  delete: { verb: 'delete', done: 'deleted', jobName: 'DeleteFiles' },
  compress: { verb: 'compress', done: 'compressed', jobName: 'CompressFiles' },
  extract: { verb: 'extract', done: 'extracted', jobName: 'ExtractFiles' },
};

/** The job name the real server gives each kind of transfer job. */
export function transferJobName(kind: TransferKind): string {
  return DONE[kind].jobName;
}

/**
 * The system's transfer directives as script lines, `{account}` filled in. 400 when they need an
 * account and none was given; an account that could smuggle in another directive line is refused.
 */
export function formatDirectives(directives: string[], account: string | undefined): string[] {
  const needsAccount = directives.some((d) => d.includes('{account}'));
  if (!needsAccount) return directives;
  if (!account) throw new ApiError(400, 'Account parameter is required on this system.');
  if (/[\s\0]/.test(account)) throw new ApiError(400, `Invalid account: '${account}'.`);
  return directives.map((d) => d.split('{account}').join(account));
}

/** The whole job script for `argv` (the transfer command) under `directives`. */
export function transferScript(kind: TransferKind, directives: string[], argv: string[]): string {
  const { verb, done } = DONE[kind];
  return [
    '#!/bin/bash',
    ...directives,
    '',
    shellCommand(argv),
    'rc=$?',
    'if [ "$rc" -eq 0 ]; then',
    `    echo 'Files were successfully ${done}.'`,
    '    exit 0',
    'fi',
    `echo "Unable to ${verb} files, exit code: $rc" >&2`,
    'exit "$rc"',
    '',
  ].join('\n');
}
