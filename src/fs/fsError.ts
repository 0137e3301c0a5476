import * as l10n from '@vscode/l10n';
/**
 * The file-system failures the provider core raises itself (semantics VS Code asks for, such as
 * "exists" or "is a directory"). Kept free of `vscode` so the core runs in plain Node (bench);
 * `toFileSystemError` turns them, and the client's typed errors, into `vscode.FileSystemError`.
 */
export type FsErrorCode =
  | 'FileNotFound'
  | 'FileExists'
  | 'FileNotADirectory'
  | 'FileIsADirectory'
  | 'NoPermissions'
  | 'Unavailable'
  | 'TooLarge'
  | 'NotEmpty';

export class FsError extends Error {
  constructor(
    readonly code: FsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FsError';
  }
}

const MiB = 1024 * 1024;

/**
 * The one place that says a file cannot move through the direct routes. The staged-transfer work
 * replaces the callers of this function; the wording stays in one spot until then.
 */
export function tooLargeForDirectTransfer(path: string, size: number | undefined, limit: number): FsError {
  const actual = size === undefined ? l10n.t('more than {0}', mib(limit)) : mib(size);
  return new FsError(
    'TooLarge',
    l10n.t('{0}: file too large for direct transfer ({1} > {2} limit); staged transfers come with a later update', path, actual, mib(limit)),
  );
}

/** `1 MiB`, `2.37 MiB`; exact bytes when two sizes would otherwise read the same. */
function mib(n: number): string {
  if (n % MiB === 0) return `${n / MiB} MiB`;
  const rounded = (n / MiB).toFixed(2);
  return Number(rounded) * MiB === n ? `${rounded} MiB` : `${rounded} MiB (${n} bytes)`;
}
