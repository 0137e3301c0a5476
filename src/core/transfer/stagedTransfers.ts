/**
 * Seam for staged transfers (v2 `transfer/upload|download` with S3/streamer/wormhole directives,
 * v1 `xfer-external`). Not implemented yet: a later issue adds an implementation next to this
 * interface, built from a client's ApiHttp, without changing FirecrestApi callers.
 */
import type { TransferOptions } from '../api';

/** Large-file transfers through object storage, with progress events. */
export interface StagedTransfers {
  /** Uploads a local file to `remotePath` (the full target file path). */
  upload(system: string, localPath: string, remotePath: string, opts?: TransferOptions): Promise<void>;
  /** Downloads `remotePath` into the local file `localPath`. */
  download(system: string, remotePath: string, localPath: string, opts?: TransferOptions): Promise<void>;
}
