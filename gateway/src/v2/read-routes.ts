/**
 * The reading ops routes (head, tail, view, checksum, file, stat, download): each one command run as
 * the user, answered with the real server's shapes (FileContent positions, Stat ints, raw bytes).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors';
import { ctx, type V2Deps } from './context';
import { Inputs } from '../fs/inputs';
import { runRemote } from '../fs/run-remote';
import { upstream, upstreamChecksum, upstreamView } from '../compat';

/** head and tail share their inputs: `bytes` xor `lines`, and the skip flag of each. */
function contentInputs(q: Inputs, skipName: string): { path: string; bytes?: number; lines?: number; skip: boolean } {
  const path = q.path();
  const bytes = q.int(['bytes']);
  const lines = q.int(['lines']);
  const skip = q.bool([skipName]);
  // The real server tests truthiness: a 0 counts as "not given".
  if (bytes && lines) throw new ApiError(400, 'Only one of `bytes` or `lines` can be specified.');
  return { path, bytes, lines, skip };
}

const STAT_FIELDS = ['mode', 'ino', 'dev', 'nlink', 'uid', 'gid', 'size', 'atime', 'mtime', 'ctime'] as const;

export async function readRoutes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  const { settings } = deps;

  app.get('/head', async (req) => {
    const { user } = ctx(req);
    const { path, bytes, lines, skip } = contentInputs(Inputs.query(req), 'skipTrailing');
    const argv = ['head'];
    if (bytes) argv.push(`--bytes=${skip ? '-' : ''}${bytes}`);
    if (lines) argv.push(`--lines=${skip ? '-' : ''}${lines}`);
    const out = await runRemote(user, [...argv, '--', path], settings);
    let end = 10;
    if (lines !== undefined) end = skip ? -lines : lines;
    else if (bytes !== undefined) end = skip ? -bytes : bytes;
    return { output: { content: out.stdout.toString('utf8'), contentType: bytes ? 'bytes' : 'lines', startPosition: 0, endPosition: end } };
  });

  app.get('/tail', async (req) => {
    const { user } = ctx(req);
    const { path, bytes, lines, skip } = contentInputs(Inputs.query(req), 'skipHeading');
    const argv = ['tail'];
    if (bytes) argv.push(`--bytes=${skip ? '+' : ''}${bytes}`);
    if (lines) argv.push(`--lines=${skip ? '+' : ''}${lines}`);
    const out = await runRemote(user, [...argv, '--', path], settings);
    let start = 10;
    if (lines !== undefined) start = skip ? lines : -lines;
    else if (bytes !== undefined) start = skip ? bytes : -bytes;
    return { output: { content: out.stdout.toString('utf8'), contentType: bytes ? 'bytes' : 'lines', startPosition: start, endPosition: -1 } };
  });

  app.get('/view', async (req) => {
    const { user } = ctx(req);
    const q = Inputs.query(req);
    const path = q.path();
    const size = q.int(['size']) ?? settings.maxOpsFileSize;
    const offset = q.int(['offset']) ?? 0;
    if (offset < 0) throw new ApiError(400, '`offset` value must be an integer value equal or greater than 0');
    if (size <= 0) throw new ApiError(400, '`size` value must be an integer value greater than 0');
    if (size > settings.maxOpsFileSize) throw new ApiError(400, `\`size\` value must be less than ${settings.maxOpsFileSize} bytes`);
    // Two blocks from the block holding `offset` always contain the `size` bytes starting there;
    // their total counts against the output limit, as on the real server.
    const argv = ['dd', `if=${path}`, `bs=${size}`, `skip=${Math.floor(offset / size)}`, 'count=2', 'status=none'];
    const out = await runRemote(user, argv, settings);
    if (upstream(req)) return { output: upstreamView(out.stdout, offset, size) };
    const from = offset % size;
    return { output: out.stdout.subarray(from, from + size).toString('utf8') };
  });

  app.get('/checksum', async (req) => {
    const { user } = ctx(req);
    const path = Inputs.query(req).path();
    const out = await runRemote(user, ['sha256sum', '--', path], settings);
    if (upstream(req)) return { output: upstreamChecksum(out.stdout.toString('utf8'), out.stderr.toString('utf8')) };
    // sha256sum prefixes the line with `\` when it had to escape the file name.
    const checksum = (out.stdout.toString('utf8').split(/\s+/)[0] ?? '').replace(/^\\/, '');
    return { output: { algorithm: 'SHA256', checksum } };
  });

  app.get('/file', async (req) => {
    const { user } = ctx(req);
    const path = Inputs.query(req).path();
    // -E: a missing or unreadable path is an error (404/403), not a description of the error;
    // `file` reports it on stdout.
    const out = await runRemote(user, ['file', '-b', '-E', '--', path], settings, { describeFailure: (f) => ({ code: f.code, text: f.stderr || f.stdout }) });
    return { output: out.stdout.toString('utf8').trim() };
  });

  app.get('/stat', async (req) => {
    const { user } = ctx(req);
    const q = Inputs.query(req);
    const path = q.path();
    const deref = q.bool(['dereference']) ? ['--dereference'] : [];
    const out = await runRemote(user, ['stat', ...deref, '-c', '%f %i %d %h %u %g %s %X %Y %Z', '--', path], settings);
    const values = out.stdout.toString('utf8').trim().split(/\s+/);
    if (values.length !== STAT_FIELDS.length) throw new ApiError(500, `Unexpected stat output: ${out.stdout.toString('utf8')}`);
    const stat: Record<string, number> = {};
    STAT_FIELDS.forEach((k, i) => { stat[k] = k === 'mode' ? parseInt(values[i], 16) : Number(values[i]); });
    return { output: stat };
  });

  app.get('/download', async (req, reply) => {
    const { user } = ctx(req);
    const path = Inputs.query(req).path();
    const limit = settings.maxOpsFileSize;
    // One byte past the limit tells a file of exactly the limit from a larger one, in one process.
    const out = await runRemote(user, ['head', `--bytes=${limit + 1}`, '--', path], settings, { maxOutputBytes: limit + 2 });
    if (out.stdout.length > limit) throw new ApiError(413, 'File to download is too large.');
    return reply.code(200).type('application/octet-stream').send(out.stdout);
  });
}
