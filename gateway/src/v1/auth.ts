/**
 * The v1 microservices' own token check (§1.3 v1): the same tokens the gateway's token endpoint
 * issues, verified by the shared TokenService, but refused with the Flask services' bodies
 * (`{"description": ...}`, 401). v1 has no minimum remaining lifetime, so a verified token with
 * less than 30 s left is still accepted here.
 */
import type { FastifyRequest } from 'fastify';
import type { TokenService } from '../auth';
import { ApiError } from '../http/errors';
import type { UserTable } from '../setup';
import type { UnixUser } from '../users';
import { V1Error } from './errors';

const GENERAL = 'Bad header or JWT, general exception raised';

function claims(token: string, part: 0 | 1): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(token.split('.')[part] ?? '', 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function v1Authenticate(req: FastifyRequest, tokens: TokenService, users: UserTable): Promise<UnixUser> {
  const header = req.headers.authorization;
  if (!header) throw new V1Error(401, { description: 'No Auth Header given' });
  const token = header.replace(/^Bearer /, '').trim();
  if (token.split('.').length !== 3 || !claims(token, 0)) throw new V1Error(401, { description: GENERAL });
  if (claims(token, 0)?.alg !== 'RS256') throw new V1Error(401, { description: 'JWT token has invalid signature algorithm' });
  let username: string;
  try {
    username = await tokens.verify(token);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    if (e.message === 'Access token expired') throw new V1Error(401, { description: 'JWT token has expired' });
    // Thrown only after the signature was verified: the claims can be trusted.
    if (e.message.startsWith('Access token expires too soon')) {
      const name = claims(token, 1)?.preferred_username;
      username = typeof name === 'string' ? name : '';
    }
    else if (e.status === 401) throw new V1Error(401, { description: 'JWT token has invalid signature' });
    else throw new V1Error(401, { description: GENERAL });
  }
  const user = users.users.get(username);
  if (!user) throw new V1Error(401, { description: GENERAL });
  return user;
}
