/**
 * The `tar` command lines of compress/extract, shared by the synchronous ops routes (run as argv) and
 * the transfer jobs (quoted into a batch script). User values are always separate arguments: with a
 * `matchPattern` the pipeline is a fixed bash program that receives them as positional parameters.
 */
import { posix } from 'node:path';
import { ApiError, validationError } from '../http/errors';

export type Compression = 'none' | 'bzip2' | 'gzip' | 'xz';

const FLAGS: Record<Compression, string> = { none: '', bzip2: 'j', gzip: 'z', xz: 'J' };

/** Validates the `compression` field (default gzip) like the real server's enum. */
export function compressionOf(value: string | undefined): Compression {
  if (value === undefined) return 'gzip';
  if (Object.prototype.hasOwnProperty.call(FLAGS, value)) return value as Compression;
  throw validationError('body', 'compression', "Input should be 'none', 'bzip2', 'gzip' or 'xz'");
}

export interface CompressSpec {
  sourcePath: string;
  targetPath: string;
  matchPattern?: string;
  dereference: boolean;
  compression: Compression;
}

// `find -regex` selects the files (in the source's parent directory); this always writes gzip, as the real server does.
const MATCH_PROGRAM = 'set -o pipefail; cd -- "$1" && find . -type f -regex "$2" -print0 | tar $4 -czf "$3" --null --files-from -';

/** argv that creates `targetPath` from `sourcePath` (relative to the source's parent directory). */
export function compressArgv(spec: CompressSpec): string[] {
  const dir = posix.dirname(spec.sourcePath);
  const base = posix.basename(spec.sourcePath);
  if (!base) throw new ApiError(400, `Invalid path: '${spec.sourcePath}' has no file name to compress.`);
  const deref = spec.dereference ? ['--dereference'] : [];
  if (spec.matchPattern) {
    return ['bash', '-c', MATCH_PROGRAM, 'compress', dir, spec.matchPattern, spec.targetPath, deref.join(' ')];
  }
  return ['tar', ...deref, `-c${FLAGS[spec.compression]}f`, spec.targetPath, '-C', dir, '--', base];
}

/** argv that unpacks the archive `sourcePath` into the directory `targetPath`. */
export function extractArgv(sourcePath: string, targetPath: string, compression: Compression): string[] {
  return ['tar', `-x${FLAGS[compression]}f`, sourcePath, '-C', targetPath];
}
