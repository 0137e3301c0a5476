/**
 * Names in a server's listing are untrusted input: a buggy or hostile server could answer
 * `../../x`, `a/b` or `..`, and a folder download joins names to a local path. Every listing is
 * screened here, where it is parsed, before any feature sees it.
 */
import type { FileEntry } from './model';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A run of C octal escapes of bytes 0x80-0xff (`\303\251`). */
const OCTAL_RUN = /(?:\\[23][0-7]{2})+/g;

/**
 * A name as a server without a UTF-8 locale sends it (`ls --quoting-style=c` over SSH): its
 * non-ASCII bytes as C octal escapes, `donn\303\251es.txt`. Each run of such escapes that is
 * valid UTF-8 is decoded; anything else (a real backslash, an invalid run) stays as it is.
 */
export function decodeCEscapes(name: string): string {
  if (!name.includes('\\')) return name;
  return name.replace(OCTAL_RUN, (run) => {
    const bytes = Uint8Array.from(run.slice(1).split('\\').map((o) => parseInt(o, 8)));
    try {
      return UTF8.decode(bytes);
    } catch {
      return run;
    }
  });
}

/**
 * Why `name` cannot be an entry of a listing, or undefined when it can. A plain listing's names
 * are one path segment; a recursive one's are relative paths (`sub/file.txt`) whose every
 * segment is such a name.
 */
export function entryNameProblem(name: string, recursive = false): string | undefined {
  if (name === '') return 'it is empty';
  if (name.includes('\0')) return 'it contains a NUL byte';
  const segments = recursive ? name.split('/') : [name];
  if (!recursive && name.includes('/')) return "it contains '/'";
  if (recursive && name.startsWith('/')) return 'it is an absolute path';
  for (const s of segments) {
    if (s === '') return "it contains an empty path segment ('//' or a trailing '/')";
    if (s === '.' || s === '..') return `it is or contains '${s}'`;
  }
  return undefined;
}

/**
 * The entries whose names are safe; each refused one is reported through `refuse` (the log), so
 * a listing never fails as a whole because of one bad name. `listed` is the path asked for: the
 * listing of a file (or of a link, not followed) is that one entry, named as the path was given.
 */
export function screenEntries(entries: FileEntry[], listed: string, where: string, recursive: boolean, refuse: (message: string) => void): FileEntry[] {
  if (entries.length === 1 && entries[0].name === listed && !listed.includes('\0')) return entries;
  let out: FileEntry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const problem = entryNameProblem(entries[i].name, recursive);
    if (problem === undefined) {
      out?.push(entries[i]);
      continue;
    }
    out ??= entries.slice(0, i);
    refuse(`${where}: the server listed an entry named ${JSON.stringify(entries[i].name)}, which was left out: ${problem}.`);
  }
  return out ?? entries;
}
