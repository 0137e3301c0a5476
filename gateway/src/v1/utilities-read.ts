/**
 * v1 utilities reading routes (§2.4): ls, file, stat, checksum, head, tail, view, download, whoami.
 * The listing reuses the v2 fs helper (find-based) and speaks the v1 LsEntry shape.
 */
import { posix } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdNames } from '../fs/id-names';
import { listFiles } from '../fs/listing';
import { Fields, machine, v1User, type V1Deps } from './context';
import { fromRemote, headerValue, V1Error } from './errors';
import { fileSize, runV1 } from './remote';

const STAT_FIELDS = ['mode', 'ino', 'dev', 'nlink', 'uid', 'gid', 'size', 'atime', 'mtime', 'ctime'] as const;

/** Machine check and query fields of a utilities GET; `command` names the operation in errors. */
function inputs(req: FastifyRequest, deps: V1Deps, command: string): Fields {
  machine(req, deps, 'utilities', `Error on ${command} operation`);
  return Fields.query(req, `Error on ${command} operation`);
}

/** head/tail arguments: `lines` xor `bytes`, with the skip flag turning them into `-N` / `+N`. */
function headTailArgv(tool: 'head' | 'tail', q: Fields, path: string): string[] {
  const lines = q.int('lines');
  const bytes = q.int('bytes');
  if (lines !== undefined && bytes !== undefined) throw q.invalid("Can not specify both 'bytes' and 'lines'");
  const skip = tool === 'head' ? q.bool('skip_ending') : q.bool('skip_beginning');
  const sign = skip ? (tool === 'head' ? '-' : '+') : '';
  const argv: string[] = [tool];
  if (lines !== undefined) argv.push(`--lines=${sign}${lines}`);
  if (bytes !== undefined) argv.push(`--bytes=${sign}${bytes}`);
  return [...argv, '--', path];
}

/** Runs head/tail and, with `grep`, keeps the lines containing the fixed string (404 when none). */
async function headTail(req: FastifyRequest, deps: V1Deps, tool: 'head' | 'tail', command: string): Promise<string> {
  const q = inputs(req, deps, command);
  const path = q.required('targetPath');
  const pattern = q.raw('grep');
  const out = (await runV1(v1User(req), headTailArgv(tool, q, path), command, deps.settings)).stdout.toString('utf8');
  if (pattern === undefined || pattern === '') return out;
  const lines = out.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const hits = lines.filter((l) => l.includes(pattern));
  if (hits.length === 0) {
    throw new V1Error(404, { description: `Error on ${command} operation with grep`, error: 'pattern not found' }, { 'X-Not-Found': 'pattern not found' });
  }
  return `${hits.join('\n')}\n`;
}

async function tooLarge(req: FastifyRequest, deps: V1Deps, path: string, command: string, description: string): Promise<void> {
  const size = await fileSize(v1User(req), path, command, deps.settings);
  if (size > deps.settings.maxOpsFileSize) {
    throw new V1Error(400, { description }, { 'X-Size-Limit': `File exceeds size limit (${deps.settings.maxOpsFileSize} bytes)` });
  }
}

export async function utilitiesReadRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const { settings } = deps;
  const listing = { settings, names: new IdNames() };

  app.get('/ls', async (req) => {
    const q = inputs(req, deps, 'ls');
    const path = q.required('targetPath');
    let files;
    try {
      files = await listFiles(v1User(req), path, {
        showHidden: q.bool('showhidden'), recursive: q.bool('recursive'), numericUid: q.bool('numericUid'), dereference: q.bool('followLinks'),
      }, listing);
    } catch (e) {
      throw fromRemote('ls', e);
    }
    let output = files.map((f) => ({
      name: f.name, type: f.type, link_target: f.linkTarget ?? '', user: f.user, group: f.group,
      permissions: f.permissions, last_modified: f.lastModified, size: f.size,
    }));
    const size = Number(q.raw('pageSize'));
    const page = Number(q.raw('pageNumber'));
    // 1-based pages; invalid values give the whole list, as on the real server.
    if (Number.isInteger(size) && size > 0 && Number.isInteger(page) && page > 0) output = output.slice((page - 1) * size, page * size);
    return { description: 'List of contents', output };
  });

  app.get('/file', async (req) => {
    const path = inputs(req, deps, 'file').required('targetPath');
    const out = await runV1(v1User(req), ['file', '-b', '-E', '--', path], 'file', settings, { stderrText: (err, stdout) => err || stdout });
    return { description: 'Success to file command', output: out.stdout.toString('utf8').trim() };
  });

  app.get('/stat', async (req) => {
    const q = inputs(req, deps, 'stat');
    const path = q.required('targetPath');
    const deref = q.bool('dereference') ? ['--dereference'] : [];
    const out = await runV1(v1User(req), ['stat', ...deref, '-c', '%f %i %d %h %u %g %s %X %Y %Z', '--', path], 'stat', settings);
    const values = out.stdout.toString('utf8').trim().split(/\s+/);
    const output: Record<string, number> = {};
    STAT_FIELDS.forEach((k, i) => { output[k] = k === 'mode' ? parseInt(values[i] ?? '0', 16) : Number(values[i]); });
    return { description: 'Success to stat file.', output };
  });

  app.get('/checksum', async (req) => {
    const path = inputs(req, deps, 'checksum').required('targetPath');
    const out = await runV1(v1User(req), ['sha256sum', '--', path], 'checksum', settings);
    return { description: 'Checksum successfully retrieved', output: (out.stdout.toString('utf8').split(/\s+/)[0] ?? '').replace(/^\\/, '') };
  });

  app.get('/head', async (req) => ({ description: 'File content successfully returned', output: await headTail(req, deps, 'head', 'head') }));
  app.get('/tail', async (req) => ({ description: 'File content successfully returned', output: await headTail(req, deps, 'tail', 'tail') }));

  app.get('/view', async (req) => {
    const path = inputs(req, deps, 'view').required('targetPath');
    await tooLarge(req, deps, path, 'view', 'Failed to view file content');
    return { description: 'File content successfully returned', output: await headTail(req, deps, 'head', 'view') };
  });

  app.get('/download', async (req, reply: FastifyReply) => {
    const path = inputs(req, deps, 'download').required('sourcePath');
    await tooLarge(req, deps, path, 'download', 'Failed to download file');
    const out = await runV1(v1User(req), ['cat', '--', path], 'download', settings);
    return reply.code(200).type('application/octet-stream')
      .header('Content-Disposition', `attachment; filename=${headerValue(posix.basename(path))}`).send(out.stdout);
  });

  app.get('/whoami', async (req) => {
    const q = inputs(req, deps, 'whoami');
    const user = v1User(req);
    if (!q.bool('groups')) return { description: 'User information', output: user.name };
    const group = user.groups.find((g) => g.gid === user.gid) ?? { name: user.group, gid: user.gid };
    return {
      description: 'User information',
      output: {
        user: { name: user.name, id: String(user.uid) },
        group: { name: group.name, id: String(group.gid) },
        groups: user.groups.map((g) => ({ name: g.name, id: String(g.gid) })),
      },
    };
  });
}
