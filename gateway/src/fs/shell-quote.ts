/**
 * Quotes one word for bash: single quotes keep every byte literal (newlines, `$`, backticks,
 * globs), and an embedded `'` closes the quote, adds an escaped quote and reopens it.
 */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new Error('a shell word cannot contain a NUL character');
  // Plain words stay bare so scripts read well; `=` is not plain (a first word `a=b` is an assignment).
  if (/^[A-Za-z0-9_./:,+@%-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line for bash from an argv, every word quoted. */
export function shellCommand(argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}
