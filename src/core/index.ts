/**
 * The public face of the FirecREST client core (built as `dist/core.js`). Plain Node: no VS Code.
 */
export * from './model';
export * from './errors';
export type * from './api';
export { hasV1Extras } from './api';
export type { ClientEvents, ClientOptions, FirecrestClient } from './client';
export { FirecrestUri, FIRECREST_SCHEME } from './uri';
export type { Logger } from './logger';
export { silentLogger } from './logger';
export { createClient } from './createClient';
export { redact } from './http/redact';
export { classifyState, isFinalState } from './jobState';
export { failingServices } from './v2/translate';
export type { StagedTransfers, StagedTransferOptions, StagedUploadState, TransferResult, UploadedPart } from './transfer/stagedTransfers';
export type { FileTransfers } from './transfer/fileTransfers';
