/**
 * Writing a file so that a crash at any moment leaves either its old content or its new one, never a
 * mix: the bytes go to a temporary name in the target's folder, their count is checked, and only
 * then is the temporary file renamed over the target (rename is atomic within a file system).
 *
 * The program runs as the user (argv only; the target is a positional argument, never shell text).
 * It writes in place, as `dd of=` did, where a rename cannot keep what the user expects: a target
 * owned by someone else (a rename would change its owner) or a folder the user may not create files
 * in. A symbolic link is written through, to the file it names. Error texts are dd's, so the
 * callers' classification (404/403/…) is unchanged.
 */

const PROGRAM = [
  't=$1; want=$2',
  'if [ -d "$t" ]; then printf "dd: failed to open \'%s\': Is a directory\\n" "$t" >&2; exit 1; fi',
  'if [ -L "$t" ]; then r=$(readlink -f -- "$t") && t=$r; fi',
  'd=${t%/*}; [ -n "$d" ] || d=/; b=${t##*/}',
  'inplace() { exec dd of="$t" bs=1M status=none; }',
  'if [ ! -w "$d" ] || { [ -e "$t" ] && [ ! -O "$t" ]; }; then inplace; fi',
  'tmp=$(mktemp -p "$d" ".$b.f7t-XXXXXX" 2>/dev/null) || inplace',
  'trap \'rm -f -- "$tmp"\' EXIT',
  'dd of="$tmp" bs=1M status=none || exit 1',
  'got=$(stat -c %s -- "$tmp") || exit 1',
  'if [ -n "$want" ] && [ "$got" != "$want" ]; then echo "dd: short write: $got of $want bytes arrived; $t was left as it was" >&2; exit 1; fi',
  'if [ -e "$t" ]; then chmod --reference="$t" -- "$tmp" 2>/dev/null',
  'else chmod "$(printf %o $(( 0666 & ~0$(umask) )))" -- "$tmp"; fi',
  'mv -f -- "$tmp" "$t" || exit 1',
  'trap - EXIT',
].join('\n');

/**
 * The argv that writes stdin to `target` atomically; `size` (when known) is the byte count that must
 * arrive before the target is replaced, so a writer cut off mid-way (its stdin closed early by a
 * crash) changes nothing.
 */
export function atomicWriteArgv(target: string, size?: number): string[] {
  return ['bash', '-c', PROGRAM, 'f7t-write', target, size === undefined ? '' : String(size)];
}

const COPY_PROGRAM = [
  'src=$1; t=$2; shift 2',
  'direct() { exec cp "$@" -- "$src" "$t"; }',
  // A tree, a link, or a copy into a folder: cp as it is (there is no single file to replace).
  'if [ ! -f "$src" ] || [ -L "$src" ] || [ -d "$t" ]; then direct "$@"; fi',
  'if [ -L "$t" ]; then r=$(readlink -f -- "$t") && t=$r; fi',
  'd=${t%/*}; [ -n "$d" ] || d=/; b=${t##*/}',
  'if [ ! -w "$d" ] || { [ -e "$t" ] && [ ! -O "$t" ]; }; then direct "$@"; fi',
  'tmp=$(mktemp -p "$d" ".$b.f7t-XXXXXX" 2>/dev/null) || direct "$@"',
  'trap \'rm -f -- "$tmp"\' EXIT',
  'cp "$@" -- "$src" "$tmp" || exit 1',
  'mv -f -- "$tmp" "$t" || exit 1',
  'trap - EXIT',
].join('\n');

/**
 * `cp <options> -- source target`, where a regular file replacing a file is copied to a temporary
 * name first and renamed over the target once whole (a copy killed mid-way leaves the old target).
 */
export function atomicCopyArgv(options: string[], source: string, target: string): string[] {
  return ['bash', '-c', COPY_PROGRAM, 'f7t-copy', source, target, ...options];
}
