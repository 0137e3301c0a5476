/**
 * Job scripts of staged (S3) transfers. Like the real ingress/egress jobs they talk to the staging
 * area over HTTP with presigned URLs (`curl`), as the user, so the gateway's own store stays
 * private. Every value is a quoted shell word; the URLs never reach the logs (curl runs silent and
 * only its error text is kept).
 */
import { shellQuote } from './shell-quote';

export interface IngressScript {
  directives: string[];
  target: string;
  /** Presigned GET of the staged object (HEAD works with it too). */
  objectUrl: string;
  /** Presigned DELETE of the staged object, called once it has been copied. */
  deleteUrl: string;
  /** How many seconds of probing before giving up (the client never completed the upload). */
  maxProbes: number;
  /** Seconds between probes (1; upstream's ingress job probes every 60 s). */
  probeSeconds?: number;
  /**
   * Seconds of no connection at all to the staging area (curl's 000) before giving up (600): a
   * gateway that was killed leaves no job probing its dead port for a day.
   */
  unreachableSeconds?: number;
}

/**
 * Upload side (`File was successfully downloaded`): probe the object every second until the client
 * completed the multipart upload, then fetch it into the target. Exit 3 when the target is a directory.
 */
export function ingressScript(s: IngressScript): string {
  const every = s.probeSeconds ?? 1;
  const unreachableLimit = s.unreachableSeconds ?? 600;
  return [
    '#!/bin/bash',
    ...s.directives,
    '',
    `target=${shellQuote(s.target)}`,
    `url=${shellQuote(s.objectUrl)}`,
    `del=${shellQuote(s.deleteUrl)}`,
    'is_dir() { if [ -d "$target" ]; then echo "Cannot write to $target: Is a directory" >&2; exit 3; fi; }',
    'is_dir',
    'probes=0',
    'unreachable=0',
    'while :; do',
    '    code=$(curl -s -o /dev/null -w "%{http_code}" -I "$url")',
    '    [ "$code" = 200 ] && break',
    '    if [ "$code" != 404 ] && [ "$code" != 000 ]; then echo "The staging area refused the object probe (HTTP $code)" >&2; exit 4; fi',
    `    if [ "$code" = 000 ]; then unreachable=$((unreachable + ${every})); else unreachable=0; fi`,
    `    if [ "$unreachable" -ge ${unreachableLimit} ]; then echo "The staging area could not be reached for ${unreachableLimit} s" >&2; exit 4; fi`,
    `    probes=$((probes + ${every}))`,
    `    if [ "$probes" -ge ${s.maxProbes} ]; then echo "The staged object did not appear within ${s.maxProbes} s" >&2; exit 4; fi`,
    `    sleep ${every}`,
    'done',
    'is_dir',
    // Into a temporary name next to the target, renamed over it once whole: a job killed mid-way
    // (or a dropped connection) leaves the old file, never a part of the new one.
    'tmp=$(mktemp -p "$(dirname -- "$target")" ".$(basename -- "$target").f7t-XXXXXX") || { echo "Cannot write to $target" >&2; exit 5; }',
    'trap \'rm -f -- "$tmp"\' EXIT',
    'if ! curl -sS -f -o "$tmp" "$url"; then echo "Unable to download the staged object to $target" >&2; exit 5; fi',
    '[ -e "$target" ] && chmod --reference="$target" -- "$tmp" 2>/dev/null',
    '[ -e "$target" ] || chmod "$(printf %o $(( 0666 & ~0$(umask) )))" -- "$tmp"',
    'mv -f -- "$tmp" "$target" || { echo "Unable to move the staged object to $target" >&2; exit 5; }',
    'trap - EXIT',
    'size=$(stat -c %s -- "$target")',
    'curl -s -o /dev/null -X DELETE "$del" || true',
    'echo "File was successfully downloaded (size: $(awk -v s="$size" \'BEGIN { printf "%.2f", s / 1048576 }\')MB)"',
    'exit 0',
    '',
  ].join('\n');
}

export interface EgressScript {
  directives: string[];
  source: string;
  /** Presigned PUT of the object the client will download. */
  putUrl: string;
  /** The source path written into the script as it is, as upstream does (`--compat upstream`). */
  unquotedSource?: boolean;
}

/** Download side (`[INFO] Multipart file upload successfully completed`): put the file into the staging area. */
export function egressScript(s: EgressScript): string {
  return [
    '#!/bin/bash',
    ...s.directives,
    '',
    // Upstream's script puts the path in unquoted (`--compat upstream`): whitespace breaks the assignment.
    `source=${s.unquotedSource ? s.source : shellQuote(s.source)}`,
    `url=${shellQuote(s.putUrl)}`,
    'if [ ! -f "$source" ] || [ ! -r "$source" ]; then echo "[ERROR] Cannot read $source" >&2; ls -ld -- "$source" >&2; exit 1; fi',
    'if ! curl -sS -f -o /dev/null -H "Content-Type: application/octet-stream" -T "$source" "$url"; then echo "[ERROR] Upload of $source to the staging area failed" >&2; exit 2; fi',
    'echo "[INFO] Multipart file upload successfully completed"',
    'exit 0',
    '',
  ].join('\n');
}

export interface StreamerScript {
  directives: string[];
  operation: 'receive' | 'send';
  path: string;
  secret: string;
  /** The streamer program by absolute paths (the Node binary, then the script). */
  command: readonly string[];
  host: string;
  ports: readonly [number, number];
  waitTimeoutSeconds: number;
  inboundLimitBytes: number;
  /** The path written into the script as it is, as upstream does (`--compat upstream`). */
  unquotedPath?: boolean;
}

/**
 * The streamer method's job (upstream's `job_streamer.sh` without its pip install): check the path,
 * then run the streamer as the user until the client has moved the file. The secret goes to it
 * through the environment, not its command line.
 */
export function streamerScript(s: StreamerScript): string {
  const path = s.unquotedPath ? s.path : shellQuote(s.path);
  return [
    '#!/bin/bash',
    ...s.directives,
    '',
    'echo $(date -u) "Ingress/Outgress File Transfer Job (id:${SLURM_JOB_ID:-unknown})"',
    `target=${path}`,
    s.operation === 'send'
      ? 'if [ ! -f "$target" ]; then echo "Error: source file does not exist."; exit 1; fi'
      : 'if [ -f "$target" ]; then echo "Error: destination file already exist."; exit 1; fi',
    `export F7T_STREAMER_SECRET=${shellQuote(s.secret)}`,
    `echo $(date -u) "Starting firecrest streamer in ${s.operation} mode..."`,
    [...s.command.map(shellQuote), 'server', '--host', shellQuote(s.host), '--port-range', String(s.ports[0]), String(s.ports[1]),
      '--wait-timeout', String(s.waitTimeoutSeconds), '--inbound-transfer-limit', String(s.inboundLimitBytes), s.operation, '--path', '"$target"'].join(' '),
    '',
  ].join('\n');
}
