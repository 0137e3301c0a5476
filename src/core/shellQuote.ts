/**
 * Quoting for POSIX shells: the one function that turns a value into a single shell word, for the
 * few places where the client must hand a server a command line (attach, which upstream runs as
 * `srun … <command>` with the login shell parsing it).
 */

/** `value` as one single-quoted shell word: every byte literal, `'` written as `'\''`. */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('A shell word cannot contain a NUL byte');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `bash -c '<script>'`: a script that works whether or not a shell stands in front of it. */
export function bashCommand(script: string): string {
  return `bash -c ${shellQuote(script)}`;
}
