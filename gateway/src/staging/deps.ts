/** What the staging store's routes need: the store, the URL signer and the per-user quota. */
import type { Signer } from './signer';
import type { ObjectStore } from './store';

export interface StagingDeps {
  store: ObjectStore;
  signer: Signer;
  /** Bytes one user (bucket) may hold in the staging area. */
  quotaBytes: () => number;
}
