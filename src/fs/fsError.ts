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
  const mib = (n: number) => (n / MiB).toFixed(n < 10 * MiB ? 1 : 0);
  const actual = size === undefined ? `> ${mib(limit)}` : `${mib(size)}`;
  return new FsError(
    'TooLarge',
    `${path}: file too large for direct transfer (${actual} MiB > ${mib(limit)} MiB limit); staged transfers come with a later update`,
  );
}
