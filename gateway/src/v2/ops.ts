/**
 * v2 filesystem ops routes (`/filesystem/{system}/ops/...`): synchronous commands run as the user with
 * the real server's tools, time-out and output limit. The reading routes live in read-routes.ts.
 */
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../http/errors';
import { Inputs } from '../fs/inputs';
import { IdNames } from '../fs/id-names';
import { fileEntry, listFiles } from '../fs/listing';
import { readRoutes } from './read-routes';
import { runRemote } from '../fs/run-remote';
import { compressArgv, compressionOf, extractArgv } from '../fs/tar-commands';
import { ctx, type V2Deps } from './context';
import { atomicWriteArgv } from '../fs/atomic-write';
import { cEscapedName, emptyUploadTimesOut, refuseUnescapedQuote, upstream } from '../compat';

function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/** The multipart part `file` with its bytes; 413 past the size limit. */
async function uploadedFile(req: FastifyRequest, limit: number): Promise<{ name: string; data: Buffer }> {
  let part: MultipartFile | undefined;
  try {
    part = await req.file({ limits: { fileSize: limit, files: 1 } });
  } catch (e) {
    if (errorCode(e) === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw validationError('body', 'file', 'Field required');
    throw e;
  }
  if (!part || part.fieldname !== 'file') throw validationError('body', 'file', 'Field required');
  try {
    const data = await part.toBuffer();
    // toBuffer() can miss a cut that happens in the last chunk; the stream's flag cannot.
    if (part.file.truncated) throw new ApiError(413, 'File to upload is too large.');
    return { name: part.filename, data };
  } catch (e) {
    if (errorCode(e) === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'File to upload is too large.');
    throw e;
  }
}

export async function opsRoutes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  const { settings } = deps;
  const listing = { settings, names: new IdNames() };
  await readRoutes(app, deps);

  app.get('/ls', async (req) => {
    const { user } = ctx(req);
    const q = Inputs.query(req);
    const path = q.path();
    const output = await listFiles(user, path, {
      showHidden: q.bool(['showHidden']),
      recursive: q.bool(['recursive']),
      numericUid: q.bool(['numericUid']),
      dereference: q.bool(['dereference']),
    }, listing);
    return { output: upstream(req) ? output.map((f) => ({ ...f, name: cEscapedName(f.name) })) : output };
  });

  app.put('/chmod', async (req) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    const path = b.sourcePath();
    const mode = b.requiredString(['mode']);
    await runRemote(user, ['chmod', '--', mode, path], settings);
    return { output: await fileEntry(user, path, listing) };
  });

  app.put('/chown', async (req) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    const path = b.sourcePath();
    const owner = b.string(['owner'], '') ?? '';
    const group = b.string(['group'], '') ?? '';
    // `owner` alone when no group is given, so an unknown owner reads `invalid user` (400) as chown says it.
    const spec = group ? `${owner}:${group}` : owner || ':';
    await runRemote(user, ['chown', '--', spec, path], settings);
    return { output: await fileEntry(user, path, listing) };
  });

  app.post('/mkdir', async (req, reply) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    const path = b.sourcePath();
    const parent = b.bool(['parent']) ? ['-p'] : [];
    await runRemote(user, ['mkdir', ...parent, '--', path], settings);
    return reply.code(201).send({ output: await fileEntry(user, path, listing) });
  });

  app.post('/symlink', async (req, reply) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    // The link's target may be relative (to the link's directory), like `ln -s`.
    const target = b.requiredString(['sourcePath', 'path', 'source_path']);
    if (target.includes('\0')) throw new ApiError(400, 'Invalid path: a path cannot contain a NUL character.');
    const linkPath = b.path(['linkPath', 'link_path']);
    // -T: an existing directory at linkPath is "File exists" (400), not a place to put the link in.
    await runRemote(user, ['ln', '-s', '-T', '--', target, linkPath], settings);
    return reply.code(201).send({ output: await fileEntry(user, linkPath, listing) });
  });

  app.delete('/rm', async (req, reply) => {
    const { user } = ctx(req);
    const path = Inputs.query(req).path();
    await runRemote(user, ['rm', '-r', '--', path], settings);
    return reply.code(204).send();
  });

  app.post('/upload', async (req, reply) => {
    const { user } = ctx(req);
    const dir = Inputs.query(req).path();
    const { name, data } = await uploadedFile(req, settings.maxOpsFileSize);
    if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new ApiError(400, `Invalid file name: '${name}'.`);
    }
    const target = dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
    refuseUnescapedQuote(req, target);
    await emptyUploadTimesOut(req, data.length, settings.commandTimeoutSeconds);
    // Written by the user's own process so ownership, umask and permission errors are real.
    await runRemote(user, atomicWriteArgv(target, data.length), settings, { stdin: data });
    return reply.code(204).send();
  });

  app.post('/compress', async (req, reply) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    const argv = compressArgv({
      sourcePath: b.sourcePath(),
      targetPath: b.path(['targetPath', 'target_path']),
      matchPattern: b.string(['matchPattern', 'match_pattern']) || undefined,
      dereference: b.bool(['dereference']),
      compression: compressionOf(b.string(['compression'])),
    });
    await runRemote(user, argv, settings);
    return reply.code(204).send();
  });

  app.post('/extract', async (req, reply) => {
    const { user } = ctx(req);
    const b = Inputs.body(req);
    const argv = extractArgv(b.sourcePath(), b.path(['targetPath', 'target_path']), compressionOf(b.string(['compression'])), settings.maxExtractBytes);
    await runRemote(user, argv, settings);
    return reply.code(204).send();
  });
}
