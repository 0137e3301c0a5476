/**
 * `--compat upstream`: the behaviour of the real upstream servers where it differs from what the
 * API means (the wire reference's Appendix C, observed against firecrest-v2 35e1d08 and firecrest
 * 1.16.6), so that the client's suites can tell whether it copes with a real site. The default
 * mode stays correct; every difference is one function here, called where the route would act.
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './http/errors';
import type { CompatMode } from './runtime';

export type { CompatMode } from './runtime';

declare module 'fastify' {
  interface FastifyRequest {
    /** The gateway's compat mode when the request arrived (set by the server's first hook). */
    f7tCompat?: CompatMode;
  }
}

export function upstream(req: FastifyRequest): boolean {
  return req.f7tCompat === 'upstream';
}

/**
 * Upstream puts paths in single quotes without escaping them: a path holding `'` ends the quote
 * early and bash fails on the command line (500).
 */
export function refuseUnescapedQuote(req: FastifyRequest, ...paths: (string | undefined)[]): void {
  if (!upstream(req) || !paths.some((p) => p?.includes("'"))) return;
  throw new ApiError(500, "Remote process failed with exit status:2 and error message:bash: -c: line 1: unexpected EOF while looking for matching `''");
}

/**
 * Upstream `view`: `dd bs=size skip=offset/size count=2`, the output decoded, then the *string*
 * sliced from `offset % size` for `size` characters (code points, as Python slices).
 */
export function upstreamView(blocks: Buffer, offset: number, size: number): string {
  const from = offset % size;
  return Array.from(blocks.toString('utf8')).slice(from, from + size).join('');
}

/**
 * Upstream runs `ls --quoting-style=c` over an SSH session without a UTF-8 locale: a name's
 * non-ASCII bytes come back as C octal escapes (`donn\303\251es.txt`), as do `"` and `\`.
 */
export function cEscapedName(name: string): string {
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x22) out += '\\"';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/**
 * Upstream attach runs `srun --jobid=N --overlap <command>`: srun executes the command's first
 * word itself, with no shell of its own. The gateway's schedulers run `bash -c <command>`, so the
 * command is put behind a function that does what srun does with its arguments.
 */
export function srunWithoutShell(command: string): string {
  return [
    'f7t_srun() {',
    '  if ! type -P -- "$1" >/dev/null 2>&1; then printf "slurmstepd: error: execve(): %s: No such file or directory\\n" "$1" >&2; return 2; fi',
    '  "$@"',
    '}',
    `f7t_srun ${command}`,
  ].join('\n');
}

/**
 * Upstream's answer to a cancel of a job Slurm does not know (500, where 404 is meant), and to a
 * cancel of an array task by its own numeric id, which Slurm 22.05's scancel refuses alike.
 */
export function unknownJobCancel(jobId: string): ApiError {
  return new ApiError(500, `Unexpected Slurm command response. exit_status:0 std_err:scancel: error: Kill job error on job id ${jobId}: Invalid job id specified`);
}

/** Upstream's direct upload of 0 bytes never closes the command's stdin: it times out (408). */
export async function emptyUploadTimesOut(req: FastifyRequest, size: number, timeoutSeconds: number): Promise<void> {
  if (!upstream(req) || size > 0) return;
  await new Promise((r) => setTimeout(r, timeoutSeconds * 1000));
  throw new ApiError(408, 'Command execution timeout limit exceeded.');
}

/**
 * Upstream's checksum splits sha256sum's line on whitespace and wants exactly two words: a path
 * with whitespace is a 500 "Invalid output"; the backslash that marks an escaped name stays on the sum.
 */
export function upstreamChecksum(stdout: string, stderr: string): { algorithm: string; checksum: string } {
  const parts = stdout.split(/\s+/).filter(Boolean);
  if (parts.length !== 2) throw new ApiError(500, `Invalid output: ${stdout} ${stderr}`);
  return { algorithm: 'SHA256', checksum: parts[0] ?? '' };
}

/** When each connection's last answer ended. */
const idleSince = new WeakMap<Socket, number>();

/** Notes that an answer ended on `socket` (every mode: the mode may change at run time). */
export function answered(socket: Socket): void {
  idleSince.set(socket, performance.now());
}

/**
 * uvicorn, as upstream v2 runs it, closes a connection idle for 5 s (`timeout_keep_alive`) and
 * says so in no `Keep-Alive` header. A request that comes on such a connection is the one a
 * client sends as the close crosses it: the gateway drops the connection unanswered (true), as
 * the client then sees it. The gateway's own `Keep-Alive: timeout=72` is left out in this mode.
 */
export function closedWhileIdle(req: FastifyRequest, reply: FastifyReply, idleCloseSeconds: number): boolean {
  // The v2 API only: upstream v1 is served by gunicorn behind a proxy; the store and the admin API
  // are other servers.
  if (!upstream(req) || !req.url.startsWith('/v2/')) return false;
  reply.header('connection', 'keep-alive');
  const since = idleSince.get(req.raw.socket);
  if (since === undefined || performance.now() - since < idleCloseSeconds * 1000) return false;
  reply.hijack();
  req.raw.socket.destroy();
  return true;
}
