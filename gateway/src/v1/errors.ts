/**
 * v1 error answers (§2.2): a status, a JSON body with `description` and/or `error`, and often one
 * explanatory `X-*` header whose NAME carries the meaning. Also the mapping of a failed remote
 * command to that header, in the real utilities service's order (first match wins).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';

export class V1Error extends Error {
  constructor(
    readonly status: number,
    readonly body: { description?: string; error?: string; [k: string]: unknown },
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error ?? body.description ?? `HTTP ${status}`);
    this.name = 'V1Error';
  }
}

/** The exact `error` text of a command killed by the `timeout` wrapper. */
export const TIMEOUT_TEXT = 'Command has finished with timeout signal';

/** HTTP header values are one line of printable ASCII; stderr text is neither, necessarily. */
export function headerValue(text: string): string {
  return text.replace(/[‘’]/g, "'").replace(/[\r\n\t]+/g, ' ').replace(/[^\x20-\x7e]/g, '?').trim().slice(0, 1000);
}

/**
 * The header of a failed command (§2.2 table, rows 2-20; rows 1/3 need SSH and do not happen here).
 * `grep` marks head/tail with a pattern, where exit 1 with empty stderr is "pattern not found".
 */
export function commandError(command: string, exitCode: number, stderr: string, grep = false, describe?: string): V1Error {
  const text = stderr.trim();
  const description = describe ?? `Error on ${command} operation${grep ? ' with grep' : ''}`;
  const fail = (header: string, value: string, status = 400, error = text): V1Error =>
    new V1Error(status, { description, error: error || value }, { [header]: headerValue(value) });
  if (exitCode === 124) return fail('X-Timeout', TIMEOUT_TEXT, 400, TIMEOUT_TEXT);
  if (text.includes('OPENSSH')) return fail('X-Permission-Denied', 'User does not have permissions to access machine or path');
  if (text.includes('cannot access')) return fail('X-Invalid-Path', 'path is an invalid path');
  if (text.includes('No such file') && text.includes('cannot stat')) return fail('X-Not-Found', 'sourcePath not found');
  if (text.includes('No such file')) return fail('X-Invalid-Path', 'path is an invalid path');
  if (text.includes('cannot open')) return fail('X-Permission-Denied', 'User does not have permissions to access machine or path');
  if (text.includes('Permission denied')) return fail('X-Permission-Denied', 'User does not have permissions to access machine or path');
  if (text.includes('File exists') && (text.includes('mkdir: cannot create directory') || text.includes('ln: failed to create symbolic link'))) {
    return fail('X-Exists', 'path already exists');
  }
  if (text.includes('Not a directory')) return fail('X-Not-A-Directory', 'path is not a directory');
  if (text.includes('directory')) return fail('X-A-Directory', 'path is a directory');
  if (text.includes('overwrite')) return fail('X-Exists', 'path already exists');
  if (text.includes('not permitted')) return fail('X-Permission-Denied', 'User does not have permissions to access machine or path');
  if (text.includes('invalid group')) return fail('X-Invalid-Group', 'group is an invalid group');
  if (text.includes('invalid user')) return fail('X-Invalid-Owner', 'owner is an invalid user');
  if (text.includes('invalid mode')) return fail('X-Invalid-Mode', 'mode is an invalid mode');
  if (text.includes('read permission')) return fail('X-Permission-Denied', 'User does not have permissions to access machine or path');
  if (grep && exitCode === 1 && text === '') return new V1Error(404, { description, error: 'pattern not found' }, { 'X-Not-Found': 'pattern not found' });
  return fail('X-Error', text || `exit status ${exitCode}`);
}

/**
 * The shared fs helpers (listing) throw the v2 ApiError of `runRemote`; its message keeps the exit
 * status and the stderr text, which is all the v1 mapping needs.
 */
export function fromRemote(command: string, e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  const m = /^Remote process failed with exit status:(\d+)(?: and error message:([\s\S]*))?$/.exec(e.message);
  if (!m) return new V1Error(e.status >= 500 ? 500 : 400, { description: `Error on ${command} operation`, error: e.message });
  return commandError(command, Number(m[1]), m[2] ?? '');
}

/** Error handler of the v1 plugin: V1Error as is, anything else as a JSON 500 (never a stack trace). */
export function v1ErrorHandler(error: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof V1Error) {
    for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
    return reply.code(error.status).type('application/json').send(error.body);
  }
  const fe = error as { statusCode?: number; message?: string; code?: string };
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return reply.code(fe.statusCode).send({ description: 'Invalid request', error: fe.message ?? 'bad request' });
  }
  req.log.error(error);
  return reply.code(500).send({ description: 'FirecREST Internal error', error: fe.message ?? String(error) });
}
