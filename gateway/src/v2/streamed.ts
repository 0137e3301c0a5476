/**
 * Staged transfers of a site configured with the `streamer` method (§3.5): `transfer/upload` and
 * `transfer/download` submit a job that runs the streamer as the user (`streamerScript`) and answer
 * at once with its coordinates: base64url JSON of the secret, the port range and the addresses.
 * Like upstream, an upload to a path that exists is refused (403) and a download of a missing file
 * is 404, before any job is submitted.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { upstream } from '../compat';
import { Inputs } from '../fs/inputs';
import { runRemote } from '../fs/run-remote';
import { streamerScript } from '../fs/staged-scripts';
import { ApiError } from '../http/errors';
import { ctx, type SubmitTransferJob, type V2Deps } from './context';

/** `%F` of `path`, or undefined when there is nothing there. */
async function kindOf(req: FastifyRequest, path: string, deps: V2Deps): Promise<string | undefined> {
  try {
    return (await runRemote(ctx(req).user, ['stat', '-L', '-c', '%F', '--', path], deps.settings)).stdout.toString('utf8').trim();
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined;
    throw e;
  }
}

export async function streamerTransfer(req: FastifyRequest, reply: FastifyReply, direction: 'upload' | 'download', deps: V2Deps, submit: SubmitTransferJob): Promise<FastifyReply> {
  const b = Inputs.body(req);
  const path = b.sourcePath();
  const account = b.string(['account']);
  const kind = await kindOf(req, path, deps);
  if (direction === 'upload' && kind !== undefined) throw new ApiError(403, `Target file '${path}' already exists.`);
  if (direction === 'download' && kind === undefined) throw new ApiError(404, `Remote process failed with exit status:1 and error message:stat: cannot stat '${path}': No such file or directory`);
  if (direction === 'download' && kind === 'directory') throw new ApiError(400, `${path} is a directory: only files can be downloaded.`);
  const s = deps.settings.streamer;
  const secret = randomBytes(16).toString('base64url');
  const job = await submit(req, direction === 'upload' ? 'IngressFileTransfer' : 'OutgressFileTransfer', (directives) => streamerScript({
    directives,
    operation: direction === 'upload' ? 'receive' : 'send',
    path,
    secret,
    command: s.command,
    host: s.host,
    ports: s.ports,
    waitTimeoutSeconds: s.waitTimeoutSeconds,
    inboundLimitBytes: s.inboundLimitBytes,
    unquotedPath: upstream(req),
  }), account);
  const coordinates = Buffer.from(JSON.stringify({ ports: [...s.ports], ips: [s.host], secret }), 'utf8').toString('base64url');
  return reply.code(201).send({ ...job, transferDirectives: { transferMethod: 'streamer', coordinates } });
}
