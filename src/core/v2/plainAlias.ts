/**
 * Paths that upstream FirecREST v2 cannot take whole (wire reference, Appendix C): its checksum
 * command splits `sha256sum`'s output on whitespace and wants exactly two words, and its staged
 * download job puts the source path in the script unquoted. A file in "My Project" is reached
 * there through a symlink with a plain name in the nearest folder above it whose path has no
 * whitespace, used for the one command and removed after it.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { messageOf, NotSupportedError } from '../errors';

/** Whitespace as Python's `str.split()` sees it (Unicode spaces and the information separators too). */
// eslint-disable-next-line no-control-regex -- the information separators are whitespace to Python
const SPLITS = /[\s\x1c-\x1f\x85]/u;

export function hasWhitespace(path: string): boolean {
  return SPLITS.test(path);
}

/** The ops an alias needs. */
export interface AliasOps {
  symlink(system: string, target: string, linkPath: string, o?: { signal?: AbortSignal }): Promise<void>;
  rm(system: string, path: string, o?: { signal?: AbortSignal }): Promise<void>;
}

/** The nearest folder above `path` whose own path has no whitespace; undefined when that is `/`. */
export function plainFolderAbove(path: string): string | undefined {
  let dir = posix.dirname(posix.normalize(path));
  while (dir !== '/' && hasWhitespace(dir)) dir = posix.dirname(dir);
  return dir === '/' || dir === '.' ? undefined : dir;
}

/** An alias of `path` with a plain name, and how to remove it. */
export interface PlainAlias {
  path: string;
  release(): Promise<void>;
}

/**
 * A symlink to `path` that upstream can take whole. `why` names the operation for the error when
 * no alias can be made (no plain folder above, or none the user may write to): NotSupportedError,
 * which callers read as "the server cannot do this here" and fall back from.
 */
export async function plainAlias(ops: AliasOps, system: string, path: string, why: string, o: { signal?: AbortSignal; onReleaseError?: (e: unknown) => void } = {}): Promise<PlainAlias> {
  const folder = plainFolderAbove(path);
  const refuse = (detail: string, cause?: unknown) => new NotSupportedError(`${why} cannot take ${path} on this server (FirecREST v2 splits paths on whitespace), and ${detail}`, { cause });
  if (!folder) throw refuse('no folder above it has a path without whitespace for a temporary symlink');
  const alias = `${folder}/.f7t-alias-${randomBytes(8).toString('hex')}`;
  try {
    await ops.symlink(system, path, alias, { signal: o.signal });
  } catch (e) {
    if (o.signal?.aborted) throw e;
    throw refuse(`a temporary symlink in ${folder} could not be made (${messageOf(e)})`, e);
  }
  let released = false;
  return {
    path: alias,
    release: async () => {
      if (released) return;
      released = true;
      // rm takes the link itself, never what it points to.
      await ops.rm(system, alias).catch((e: unknown) => o.onReleaseError?.(e));
    },
  };
}
