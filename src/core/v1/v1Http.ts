/**
 * v1 request helpers over the shared ApiHttp: `X-Machine-Name`, form bodies (multipart, which the
 * v1 services read like urlencoded ones) and envelope parsing. Errors keep the one mapping of
 * `http/errorMapping.ts`; only the unknown-machine answer is reworded to name the machine.
 */
import { FormData } from 'undici';
import type { z } from 'zod';
import type { CallOptions } from '../api';
import { NotFoundError } from '../errors';
import type { ApiHttp, QueryValue } from '../http/apiHttp';
import type { HttpMethod, TransportResponse } from '../http/transport';
import { parseBody } from '../v2/parse';

/** Form fields; `undefined` leaves a field out (presence matters: `mkdir`'s `p`). */
export type Fields = Record<string, string | undefined>;

/** A file part (`file`) of a multipart body. */
export interface FilePart {
  name: string;
  data: Uint8Array;
}

/** One v1 connection's request layer. */
export class V1Http {
  constructor(readonly http: ApiHttp) {}

  /** Sends one call; `machine` becomes `X-Machine-Name`. */
  async send(method: HttpMethod, route: string, o: { machine?: string; query?: Record<string, QueryValue>; fields?: Fields; file?: FilePart; headers?: Record<string, string>; expect: number[]; call?: CallOptions; params?: Record<string, string> }): Promise<TransportResponse> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.machine !== undefined) headers['x-machine-name'] = o.machine;
    const hasBody = o.fields !== undefined || o.file !== undefined;
    const form = hasBody
      ? () => {
          const f = new FormData();
          for (const [k, v] of Object.entries(o.fields ?? {})) if (v !== undefined) f.append(k, v);
          if (o.file) f.append('file', new Blob([o.file.data], { type: 'application/octet-stream' }), o.file.name);
          return f;
        }
      : undefined;
    try {
      return await this.http.request({ method, route, params: o.params, query: o.query, form, headers, expect: o.expect, call: o.call });
    } catch (e) {
      // Both spellings (`-Exist`, `-Exists`) arrive as NotFoundError; say which machine it was.
      if (e instanceof NotFoundError && o.machine !== undefined && /machine does not exist/i.test(e.message)) {
        throw new NotFoundError(`System '${o.machine}' does not exist on this FirecREST deployment (${e.message})`, { status: e.status, route: e.route, cause: e });
      }
      throw e;
    }
  }

  /** Sends and validates the JSON answer. */
  async json<S extends z.ZodType>(schema: S, method: HttpMethod, route: string, o: Parameters<V1Http['send']>[2]): Promise<z.infer<S>> {
    const res = await this.send(method, route, o);
    return parseBody(schema, res, `${method} ${route}`);
  }
}

/** v1 booleans: the servers accept `true`; pyfirecrest sends `True`. */
export function flag(v: boolean | undefined): string | undefined {
  return v ? 'true' : undefined;
}
