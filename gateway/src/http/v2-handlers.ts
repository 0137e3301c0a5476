/**
 * The v2 error and not-found handlers: every failure leaves as the v2 error body (§3.1.4), with
 * `F7T-AuthUsername` once the request was authenticated.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SchedulerError } from '../scheduler/types';
import { ApiError, v2ErrorBody } from './errors';
import type { RouteIndex } from './route-index';

export function sendV2Error(req: FastifyRequest, reply: FastifyReply, status: number, message: string, extra: ApiError['extra'] = {}): FastifyReply {
  const user = req.f7tUser?.name ?? null;
  if (user) reply.header('F7T-AuthUsername', user);
  for (const [k, v] of Object.entries(extra.headers ?? {})) reply.header(k, v);
  return reply.code(status).type('application/json').send(v2ErrorBody(message, extra, user));
}

/** Maps anything a v2 route throws to the status and message the real server would use. */
export function v2ErrorHandler(error: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendV2Error(req, reply, error.status, error.message, error.extra);
  if (error instanceof SchedulerError) return sendV2Error(req, reply, error.status, error.message);
  const fe = error as Partial<FastifyError> & { message?: string };
  if (fe.validation) {
    const location = fe.validationContext === 'querystring' ? 'query' : fe.validationContext === 'params' ? 'path' : 'body';
    const fields = fe.validation.map((v) => ({
      location,
      name: (v.instancePath || '').split('/')[1] ?? (v.params?.missingProperty as string | undefined) ?? location,
      message: v.message ?? 'invalid',
    }));
    return sendV2Error(req, reply, 400, `${fields.length} validation error${fields.length > 1 ? 's' : ''}: ${fe.message ?? ''}`, { errorType: 'validation', data: { fields } });
  }
  // Body parser failures (bad JSON, empty body...) are request validation errors to FastAPI.
  if (fe.code?.startsWith('FST_ERR_CTP_') && (fe.statusCode === 400 || fe.statusCode === 415)) {
    return sendV2Error(req, reply, 400, `1 validation error: body: ${fe.message ?? 'invalid body'}`, {
      errorType: 'validation',
      data: { fields: [{ location: 'body', name: 'body', message: fe.message ?? 'invalid body' }] },
    });
  }
  const status = typeof fe.statusCode === 'number' && fe.statusCode >= 400 ? fe.statusCode : 500;
  if (status >= 500) req.log.error(error);
  return sendV2Error(req, reply, status, fe.message ?? String(error));
}

/** 405 with `Allow` when the path exists for other methods, 307 across a trailing slash, else 404. */
export function v2NotFound(index: RouteIndex) {
  return (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const query = q < 0 ? '' : req.url.slice(q);
    const allowed = index.methodsFor(path);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.filter((m) => m !== 'HEAD').join(', '));
      return sendV2Error(req, reply, 405, 'Method Not Allowed');
    }
    const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    if (other && index.methodsFor(other).includes(req.method)) {
      const host = req.headers.host ?? 'localhost';
      return reply.code(307).header('location', `${req.protocol}://${host}${other}${query}`).send();
    }
    return sendV2Error(req, reply, 404, 'Not Found');
  };
}
