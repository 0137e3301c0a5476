/** S3 error documents, the one answer shape of every refusal under `/s3`. */
import type { FastifyReply } from 'fastify';

const xmlEscape = (s: string): string => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Sends an S3 `<Error>` XML document with `status`. */
export function s3Error(reply: FastifyReply, status: number, code: string, message: string, resource = ''): FastifyReply {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><Resource>${xmlEscape(resource)}</Resource></Error>`;
  return reply.code(status).type('application/xml').send(body);
}

