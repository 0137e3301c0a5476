/** Sync and Fetch for local projects: the entry of their bundle (loaded on first use). */
export { scanLocal, type LocalFile, type LocalScan, type ScanOptions } from './localTree';
export { emptyManifest, planSync, type Manifest, type ManifestEntry, type RemoteFile, type SyncPlan } from './plan';
export { ARCHIVE_NAME, FETCH_ARCHIVE_NAME, listRemote, previewSync, runSync, targetKey, type ManifestStore, type RunOptions, type SyncOptions, type SyncPreview, type SyncResult, type SyncTarget } from './syncToCluster';
export { previewFetch, runFetch, type FetchOptions, type FetchPlan, type FetchPreview, type FetchResult } from './fetchFromCluster';
