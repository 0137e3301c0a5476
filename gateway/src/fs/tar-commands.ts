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

// Counts what the archive expands to (stopping one byte past the cap) before tar writes anything,
// so a small archive that unpacks to gigabytes (a "gzip bomb") is refused with nothing written.
const EXTRACT_PROGRAM = [
  'src=$1; dir=$2; z=$3; cap=$4',
  'case $z in z) d="gzip -dc";; j) d="bzip2 -dc";; J) d="xz -dc";; *) d="cat";; esac',
  'n=$($d -- "$src" 2>/dev/null | head -c "$((cap + 1))" | wc -c)',
  'if [ "$n" -gt "$cap" ]; then echo "tar: $src expands to more than $cap bytes, this server\'s limit for an extraction: nothing was extracted" >&2; exit 2; fi',
  'exec tar "-x${z}f" "$src" -C "$dir"',
].join('\n');

// unzip lists the sizes it will write (and checks them as it writes): the total is refused past the cap.
const UNZIP_PROGRAM = [
  'src=$1; dir=$2; cap=$3',
  'n=$(unzip -l -- "$src" 2>/dev/null | tail -n 1 | awk \'{ print $1 + 0 }\')',
  'if [ "${n:-0}" -gt "$cap" ]; then echo "unzip: $src expands to more than $cap bytes, this server\'s limit for an extraction: nothing was extracted" >&2; exit 2; fi',
  'exec unzip -o "$src" -d "$dir"',
].join('\n');

/** argv that unzips `sourcePath` into `targetPath`, refusing an archive larger than `maxBytes` once unpacked. */
export function unzipArgv(sourcePath: string, targetPath: string, maxBytes: number): string[] {
  return ['bash', '-c', UNZIP_PROGRAM, 'unzip', sourcePath, targetPath, String(maxBytes)];
}

/**
 * argv that unpacks the archive `sourcePath` into the directory `targetPath`, refusing (exit 2,
 * nothing written) an archive whose content exceeds `maxBytes`.
 */
export function extractArgv(sourcePath: string, targetPath: string, compression: Compression, maxBytes: number): string[] {
  return ['bash', '-c', EXTRACT_PROGRAM, 'extract', sourcePath, targetPath, FLAGS[compression], String(maxBytes)];
}
