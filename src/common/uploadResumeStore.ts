/**
 * Interrupted staged uploads, remembered so that they can be resumed with the parts still missing
 * (by the Resume action, the Resume Interrupted Upload command, or the next upload of the same file
 * to the same place). The presigned URLs are bearer credentials: they go to SecretStorage (the OS
 * keychain), written once per upload; global state keeps the rest (target, local file, parts done,
 * expiry), which is what listing the uploads needs. An entry goes once its upload succeeded, was
 * cancelled or its URLs expired.
 */
import { createHash } from 'node:crypto';
import type * as vscode from 'vscode';
import type { StagedUploadState } from '../core/transfer/stagedTransfers';

const KEY = 'firecrest.stagedUploads.v2';
/** Entries of the first format (URLs in global state): dropped on the first write. */
const OLD_KEY = 'firecrest.stagedUploads';
const SECRET_PREFIX = 'firecrest.stagedUpload.';

type Urls = Pick<StagedUploadState, 'partsUploadUrls' | 'completeUploadUrl'>;

interface Entry {
  key: string;
  profile?: string;
  localPath: string;
  /** The state without its URLs (those are in SecretStorage under `SECRET_PREFIX + id`). */
  state: Omit<StagedUploadState, keyof Urls> & { partsTotal: number };
}

/** What the resume list shows of an interrupted upload. */
export interface InterruptedUpload {
  profile?: string;
  localPath: string;
  system: string;
  remotePath: string;
  partsDone: number;
  partsTotal: number;
  bytes: number;
  expiresAt?: number;
}

export class UploadResumeStore {
  /** Uploads whose URLs are already in SecretStorage (this session): parts only touch global state. */
  private readonly stored = new Map<string, string>();

  constructor(
    private readonly memento: Pick<vscode.Memento, 'get' | 'update'>,
    private readonly secrets: Pick<vscode.SecretStorage, 'get' | 'store' | 'delete'>,
  ) {}

  private entries(): Entry[] {
    const now = Date.now();
    return this.memento.get<Entry[]>(KEY, []).filter((e) => e.state.expiresAt === undefined || e.state.expiresAt > now);
  }

  private static key(profile: string | undefined, localPath: string, state: { system: string; remotePath: string }): string {
    return JSON.stringify([profile ?? '', state.system, state.remotePath, localPath]);
  }

  /** The secret's name: a hash, so that not even paths appear in the keychain's listing. */
  private static secretId(key: string): string {
    return SECRET_PREFIX + createHash('sha256').update(key).digest('hex').slice(0, 32);
  }

  /** Interrupted uploads that can still be resumed (URLs not expired), newest expiry last. */
  list(): InterruptedUpload[] {
    return this.entries().map((e) => ({
      profile: e.profile,
      localPath: e.localPath,
      system: e.state.system,
      remotePath: e.state.remotePath,
      partsDone: e.state.done.length,
      partsTotal: e.state.partsTotal,
      bytes: e.state.source.size,
      expiresAt: e.state.expiresAt,
    }));
  }

  /** The saved state of an upload of `localPath` to `system:remotePath`, unless its URLs expired or are lost. */
  async find(profile: string | undefined, localPath: string, system: string, remotePath: string): Promise<StagedUploadState | undefined> {
    const key = UploadResumeStore.key(profile, localPath, { system, remotePath });
    const hit = this.entries().find((e) => e.key === key);
    if (!hit) return undefined;
    const raw = await this.secrets.get(UploadResumeStore.secretId(key));
    if (!raw) return undefined;
    const urls = JSON.parse(raw) as Urls;
    const { partsTotal: _partsTotal, ...state } = hit.state;
    return { ...state, ...urls };
  }

  async save(profile: string | undefined, localPath: string, state: StagedUploadState): Promise<void> {
    const key = UploadResumeStore.key(profile, localPath, state);
    if (this.stored.get(key) !== state.completeUploadUrl) {
      const urls: Urls = { partsUploadUrls: state.partsUploadUrls, completeUploadUrl: state.completeUploadUrl };
      await this.secrets.store(UploadResumeStore.secretId(key), JSON.stringify(urls));
      this.stored.set(key, state.completeUploadUrl);
    }
    const { partsUploadUrls, completeUploadUrl: _url, ...rest } = state;
    const entry: Entry = { key, profile, localPath, state: { ...rest, partsTotal: partsUploadUrls.length } };
    const all = this.memento.get<Entry[]>(KEY, []);
    const now = Date.now();
    const expired = all.filter((e) => e.key !== key && e.state.expiresAt !== undefined && e.state.expiresAt <= now);
    for (const e of expired) await this.secrets.delete(UploadResumeStore.secretId(e.key));
    await this.memento.update(KEY, [...all.filter((e) => e.key !== key && !expired.includes(e)), entry]);
    if (this.memento.get(OLD_KEY) !== undefined) await this.memento.update(OLD_KEY, undefined);
  }

  async forget(profile: string | undefined, localPath: string, system: string, remotePath: string): Promise<void> {
    const key = UploadResumeStore.key(profile, localPath, { system, remotePath });
    this.stored.delete(key);
    await this.memento.update(KEY, this.memento.get<Entry[]>(KEY, []).filter((e) => e.key !== key));
    await this.secrets.delete(UploadResumeStore.secretId(key));
  }
}
