/**
 * Seam for staged transfers (v2 `transfer/upload|download` with S3 directives; v1 `xfer-external`
 * later): the types every caller sees. `FileTransfers` implements it over a `StagingRoutes`
 * (how a transfer is requested from the server) and an S3 HTTP client (how the bytes travel).
 */
import type { TransferOptions } from '../api';
import type { TransferJob } from '../model';

/** Large-file transfers through object storage, with progress events. */
export interface StagedTransfers {
  /** Uploads a local file to `remotePath` (the full target file path). */
  upload(system: string, localPath: string, remotePath: string, opts?: StagedTransferOptions): Promise<TransferResult>;
  /** Downloads `remotePath` into the local file `localPath`. */
  download(system: string, remotePath: string, localPath: string, opts?: StagedTransferOptions): Promise<TransferResult>;
}

/** One finished part of a multipart upload: the ETag exactly as S3 answered it (with its quotes). */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/**
 * Everything needed to resume an interrupted staged upload, as plain JSON (the caller stores it;
 * the extension keeps it in global storage). Holds presigned URLs: treat it as a secret, never log it.
 */
export interface StagedUploadState {
  version: 1;
  system: string;
  remotePath: string;
  /** Identity of the local file when the upload started: a changed file cannot be resumed. */
  source: { path?: string; size: number; mtimeMs?: number };
  partSize: number;
  partsUploadUrls: string[];
  completeUploadUrl: string;
  /** Parts already accepted by the staging area. */
  done: UploadedPart[];
  transferJob: TransferJob;
  /** Epoch ms after which the presigned URLs are refused (from the URLs themselves, when they say). */
  expiresAt?: number;
  /** The CompleteMultipartUpload call succeeded: only the transfer job is left to wait for. */
  completed?: boolean;
}

/** Options of staged (and size-routed) transfers. */
export interface StagedTransferOptions extends TransferOptions {
  /** A state handed out earlier through `onState`: continue that upload instead of starting anew. */
  resume?: StagedUploadState;
  /** Called with a fresh copy of the upload state whenever a part finished (and at start/completion). */
  onState?: (state: StagedUploadState) => void;
  /** Compare SHA-256 with the server's `checksum` afterwards (default true). */
  verify?: boolean;
  /** Attempts per part / per download stream before giving up (default 5). */
  attempts?: number;
}

/** What a finished transfer did. */
export interface TransferResult {
  route: 'direct' | 'staged';
  bytes: number;
  /** SHA-256 (hex) of the bytes sent or received, computed locally while streaming. */
  sha256: string;
  /** True when the server's checksum was compared and matched. */
  verified: boolean;
  /** Why `verified` is false although verification was asked for (e.g. the server's checksum timed out). */
  note?: string;
  /** A resumed upload that could not reuse its staged upload (job ended, URLs expired) and was sent afresh: why. */
  restarted?: string;
}
