/** What the staged transfer algorithms share: their collaborators and the small rules they agree on. */
import type { FirecrestApi } from '../api';
import { S3Error, UnavailableError } from '../errors';
import type { Logger } from '../logger';
import type { S3Http } from './s3Http';
import type { StagingRoutes } from './v2Staging';

/** Collaborators of one client's transfers. */
export interface TransferDeps {
  api: FirecrestApi;
  /** Undefined when the connection's API generation has no staged transfers (yet). */
  staging?: StagingRoutes;
  s3: S3Http;
  logger: Logger;
}

/** Sending again may help: a dropped connection, a 5xx or 429 from the staging area. */
export function isRetryable(e: unknown): boolean {
  if (e instanceof S3Error) return e.retryable;
  return e instanceof UnavailableError;
}

/** When an S3 presigned URL stops working (`X-Amz-Date` + `X-Amz-Expires`), if it says. */
export function urlsExpireAt(url: string | undefined): number | undefined {
  if (!url) return undefined;
  try {
    const q = new URL(url).searchParams;
    const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(q.get('X-Amz-Date') ?? '');
    const seconds = Number(q.get('X-Amz-Expires'));
    if (!m || !Number.isFinite(seconds)) return undefined;
    return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + seconds * 1000;
  } catch {
    return undefined;
  }
}
