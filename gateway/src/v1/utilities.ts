/**
 * v1 utilities changing routes (§2.4): mkdir, rename, chmod, chown, copy, compress, extract, symlink,
 * upload, rm, plus the service ping. Every command runs as the user with the real tool, argv only.
 */
import type { MultipartFile } from '@fastify/multipart';
import { upstream } from '../compat';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { posix } from 'node:path';
import { Fields, hasInvalidChar, machine, v1User, type V1Deps } from './context';
import { V1Error } from './errors';
import { runV1 } from './remote';
import { atomicCopyArgv, atomicWriteArgv } from '../fs/atomic-write';
import { extractArgv, unzipArgv } from '../fs/tar-commands';

/** Machine check and form fields of a utilities call. */
async function form(req: FastifyRequest, deps: V1Deps, command: string): Promise<Fields> {
  const f = await Fields.form(req, `Error on ${command} operation`);
  machine(req, deps, 'utilities', `Error on ${command} operation`);
  return f;
}

/** The `type` values the real server takes (with the dot); anything else is "Unsupported file format". */
export const EXTRACT_TYPES = ['.zip', '.tar', '.bz2', '.gz', '.tgz'] as const;

/**
 * The extraction command from `type` (Q1: the server reads `type`; `extension` is ignored), else from
 * the source suffix. undefined for a `type` the server does not take (`tar.gz`, `gz` without the dot).
 */
export function extractCommand(source: string, target: string, type: string | undefined, maxBytes: number): string[] | undefined {
  if (type && !(EXTRACT_TYPES as readonly string[]).includes(type)) return undefined;
  const kind = type || EXTRACT_TYPES.find((x) => source.toLowerCase().endsWith(x)) || '.tar';
  if (kind === '.zip') return unzipArgv(source, target, maxBytes);
  if (kind === '.bz2') return extractArgv(source, target, 'bzip2', maxBytes);
  if (kind === '.gz' || kind === '.tgz') return extractArgv(source, target, 'gzip', maxBytes);
  return extractArgv(source, target, 'none', maxBytes);
}

/** Reads `targetPath` and the part `file` of a multipart upload; 413 over the size limit. */
async function uploadParts(req: FastifyRequest, limit: number): Promise<{ fields: Record<string, string>; name?: string; data?: Buffer }> {
  const fields: Record<string, string> = {};
  let name: string | undefined;
  let data: Buffer | undefined;
  if (!req.isMultipart()) return { fields };
  for await (const part of req.parts({ limits: { fileSize: limit } })) {
    if (part.type === 'field') {
      fields[part.fieldname] ??= String(part.value);
      continue;
    }
    const file: MultipartFile = part;
    if (file.fieldname !== 'file' || data) {
      file.file.resume();
      continue;
    }
    try {
      data = await file.toBuffer();
    } catch (e) {
      if ((e as { code?: string }).code !== 'FST_REQ_FILE_TOO_LARGE') throw e;
    }
    if (!data || file.file.truncated) throw new V1Error(413, { description: `Failed to upload file. The file is over ${limit} bytes` });
    name = file.filename;
  }
  return { fields, name, data };
}

export async function utilitiesRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const { settings } = deps;
  const ok = (description: string, output: unknown = ''): Record<string, unknown> => ({ description, output });

  app.get('/status', async () => ({ success: 'ack' }));

  app.post('/mkdir', async (req, reply) => {
    const f = await form(req, deps, 'mkdir');
    const path = f.required('targetPath');
    // `p` is true when merely present, whatever its value.
    await runV1(v1User(req), ['mkdir', ...(f.has('p') ? ['-p'] : []), '--', path], 'mkdir', settings);
    return reply.code(201).send(ok('Success to mkdir file.'));
  });

  app.put('/rename', async (req) => {
    const f = await form(req, deps, 'rename');
    await runV1(v1User(req), ['mv', '--force', '--', f.required('sourcePath'), f.required('targetPath')], 'rename', settings);
    return ok('Success to rename file or directory.');
  });

  app.put('/chmod', async (req) => {
    const f = await form(req, deps, 'chmod');
    const path = f.required('targetPath');
    const out = await runV1(v1User(req), ['chmod', '-v', '--', f.required('mode'), path], 'chmod', settings);
    return ok('Success to chmod file or directory.', out.stdout.toString('utf8').trim());
  });

  app.put('/chown', async (req) => {
    const f = await form(req, deps, 'chown');
    const path = f.required('targetPath');
    const owner = f.optional('owner') ?? '';
    const group = f.optional('group') ?? '';
    if (!owner && !group) throw f.invalid('group or owner must be set');
    const out = await runV1(v1User(req), ['chown', '-v', '--', group ? `${owner}:${group}` : owner, path], 'chown', settings);
    return ok('Success to chown file or directory.', out.stdout.toString('utf8').trim());
  });

  app.post('/copy', async (req, reply) => {
    const f = await form(req, deps, 'copy');
    await runV1(v1User(req), atomicCopyArgv(['--force', '-dR', '--preserve=all'], f.required('sourcePath'), f.required('targetPath')), 'copy', settings);
    return reply.code(201).send(ok('Success to copy file or directory.'));
  });

  app.post('/compress', async (req, reply) => {
    const f = await form(req, deps, 'compress');
    const source = f.required('sourcePath');
    const target = f.required('targetPath');
    const deref = f.bool('dereference') ? ['--dereference'] : [];
    await runV1(v1User(req), ['tar', ...deref, '-czvf', target, '-C', posix.dirname(source), '--', posix.basename(source)], 'compress', settings);
    return reply.code(201).send(ok('Success to compress file or directory.'));
  });

  app.post('/extract', async (req, reply) => {
    const f = await form(req, deps, 'extract');
    const argv = extractCommand(f.required('sourcePath'), f.required('targetPath'), f.optional('type'), settings.maxExtractBytes);
    if (!argv) throw new V1Error(400, { description: 'Error on extract operation', error: 'Unsupported file format' });
    const out = await runV1(v1User(req), argv, 'extract', settings);
    // Upstream fails on what tar only warns about: a member stamped later than the cluster's clock.
    const warned = out.stderr.toString('utf8');
    if (upstream(req) && /time stamp .* in the future/.test(warned)) throw new V1Error(400, { description: 'Error on extract operation', error: warned.trim() });
    return reply.code(201).send(ok('Success to extract file or directory.'));
  });

  app.post('/symlink', async (req, reply) => {
    const f = await form(req, deps, 'symlink');
    await runV1(v1User(req), ['ln', '-s', '--', f.required('targetPath'), f.required('linkPath')], 'symlink', settings);
    return reply.code(201).send(ok('Success to link file or directory.'));
  });

  app.delete('/rm', async (req, reply) => {
    const f = await form(req, deps, 'rm');
    await runV1(v1User(req), ['rm', '-r', '--interactive=never', '--', f.required('targetPath')], 'rm', settings);
    return reply.code(204).send();
  });

  app.post('/upload', async (req, reply) => {
    const { fields, name, data } = await uploadParts(req, settings.maxOpsFileSize);
    machine(req, deps, 'utilities', 'Error on upload operation');
    const f = new Fields(fields, 'Failed to upload file');
    const dir = f.required('targetPath');
    if (!data || name === undefined) throw f.invalid('No file in query');
    // The name goes through the sanitizer like every other input; a path in it is not allowed.
    if (!name || name === '.' || name === '..' || name.includes('/') || hasInvalidChar(name)) throw f.invalid("'file' has invalid char");
    const target = dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
    await runV1(v1User(req), atomicWriteArgv(target, data.length), 'upload', settings, { stdin: data });
    return reply.code(201).send(ok('File upload successful'));
  });
}
