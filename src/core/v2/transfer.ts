/** v2 filesystem "transfer" routes (§3.5): data moved by scheduler jobs. Staged up/download: see core/transfer. */
import type { CallOptions } from '../api';
import type { ApiHttp } from '../http/apiHttp';
import type { CompressionType, TransferJob } from '../model';
import { parseBody } from './parse';
import { TransferJobW } from './wire';

const TRANSFER = '/filesystem/{system}/transfer';

/** The transfer router of one connection (job-backed mv, cp, rm, compress, extract). */
export class TransferRoutes {
  constructor(private readonly http: ApiHttp) {}

  private async job(method: 'POST' | 'DELETE', op: string, system: string, body: { json?: unknown; query?: Record<string, string | undefined> }, call?: CallOptions): Promise<TransferJob> {
    const route = `${TRANSFER}/${op}`;
    // transfer/rm answers 200, the others 201 (§3.5).
    const res = await this.http.request({ method, route, params: { system }, ...body, expect: [method === 'DELETE' ? 200 : 201], call });
    const t = parseBody(TransferJobW, res, `${method} ${route}`).transferJob;
    return { jobId: t.jobId, system: t.system, workingDirectory: t.workingDirectory ?? undefined, outputLog: t.logs?.outputLog ?? undefined, errorLog: t.logs?.errorLog ?? undefined };
  }

  mv(system: string, sourcePath: string, targetPath: string, o: CallOptions & { account?: string } = {}): Promise<TransferJob> {
    return this.job('POST', 'mv', system, { json: { sourcePath, targetPath, account: o.account } }, o);
  }

  cp(system: string, sourcePath: string, targetPath: string, o: CallOptions & { account?: string; dereference?: boolean } = {}): Promise<TransferJob> {
    return this.job('POST', 'cp', system, { json: { sourcePath, targetPath, account: o.account, dereference: !!o.dereference } }, o);
  }

  rm(system: string, path: string, o: CallOptions & { account?: string } = {}): Promise<TransferJob> {
    return this.job('DELETE', 'rm', system, { query: { path, account: o.account } }, o);
  }

  compress(system: string, sourcePath: string, targetPath: string, o: CallOptions & { account?: string; dereference?: boolean; compression?: CompressionType; matchPattern?: string } = {}): Promise<TransferJob> {
    const json = { sourcePath, targetPath, account: o.account, dereference: !!o.dereference, compression: o.compression ?? 'gzip', matchPattern: o.matchPattern };
    return this.job('POST', 'compress', system, { json }, o);
  }

  extract(system: string, sourcePath: string, targetPath: string, o: CallOptions & { account?: string; compression?: CompressionType } = {}): Promise<TransferJob> {
    return this.job('POST', 'extract', system, { json: { sourcePath, targetPath, account: o.account, compression: o.compression ?? 'gzip' } }, o);
  }
}
