/**
 * The identity provider's storage: in memory, like oidc-provider's own development adapter, but
 * indexed by grant and by account so that the admin API can end every session of a user at once
 * (what "sign out everywhere" or a disabled account does at a real identity provider).
 */
import type { Adapter, AdapterPayload } from 'oidc-provider' with { 'resolution-mode': 'import' };

interface Entry {
  payload: AdapterPayload;
  /** Epoch ms; undefined = no expiry. */
  expiresAt?: number;
}

/** Every model's rows, shared by the adapter instances oidc-provider creates (one per model). */
export class IdpStore {
  private readonly rows = new Map<string, Entry>();
  private readonly byGrant = new Map<string, Set<string>>();
  private readonly byUserCode = new Map<string, string>();
  private readonly byUid = new Map<string, string>();

  adapterFor(model: string): Adapter {
    return new StoreAdapter(this, model);
  }

  get(key: string): AdapterPayload | undefined {
    const e = this.rows.get(key);
    if (!e) return undefined;
    if (e.expiresAt !== undefined && e.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return e.payload;
  }

  set(key: string, payload: AdapterPayload, expiresInSeconds: number | undefined): void {
    this.sweepSometimes();
    this.rows.set(key, { payload, expiresAt: expiresInSeconds ? Date.now() + expiresInSeconds * 1000 : undefined });
    if (payload.grantId) {
      const keys = this.byGrant.get(payload.grantId) ?? new Set<string>();
      keys.add(key);
      this.byGrant.set(payload.grantId, keys);
    }
    if (payload.userCode) this.byUserCode.set(payload.userCode, key);
    if (payload.uid) this.byUid.set(payload.uid, key);
  }

  delete(key: string): void {
    const e = this.rows.get(key);
    this.rows.delete(key);
    if (!e) return;
    if (e.payload.userCode) this.byUserCode.delete(e.payload.userCode);
    if (e.payload.uid) this.byUid.delete(e.payload.uid);
  }

  keyOfUserCode(userCode: string): string | undefined {
    return this.byUserCode.get(userCode);
  }

  keyOfUid(uid: string): string | undefined {
    return this.byUid.get(uid);
  }

  revokeGrant(grantId: string): void {
    for (const key of this.byGrant.get(grantId) ?? []) this.delete(key);
    this.byGrant.delete(grantId);
    this.delete(`Grant:${grantId}`);
  }

  /**
   * Ends everything `accountId` holds: sessions, grants, and the refresh tokens and codes issued
   * under them. Access tokens already handed out are JWTs and stay valid until they expire, as at
   * a real identity provider. Returns how many grants were revoked.
   */
  revokeAccount(accountId: string): number {
    let grants = 0;
    for (const [key, e] of [...this.rows]) {
      if (e.payload.accountId !== accountId) continue;
      if (key.startsWith('Grant:')) {
        this.revokeGrant(key.slice('Grant:'.length));
        grants++;
      } else if (key.startsWith('Session:')) {
        this.delete(key);
      }
    }
    return grants;
  }

  private sweeps = 0;
  /** Expired rows are dropped on the way: every 500th write looks at the whole table. */
  private sweepSometimes(): void {
    if (++this.sweeps % 500 !== 0) return;
    const now = Date.now();
    for (const [key, e] of [...this.rows]) if (e.expiresAt !== undefined && e.expiresAt <= now) this.delete(key);
    for (const [grantId, keys] of [...this.byGrant]) {
      for (const k of [...keys]) if (!this.rows.has(k)) keys.delete(k);
      if (keys.size === 0 && !this.rows.has(`Grant:${grantId}`)) this.byGrant.delete(grantId);
    }
  }
}

class StoreAdapter implements Adapter {
  constructor(
    private readonly store: IdpStore,
    private readonly model: string,
  ) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.store.set(this.key(id), payload, expiresIn);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.store.get(this.key(id));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const key = this.store.keyOfUserCode(userCode);
    return key === undefined ? undefined : this.store.get(key);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const key = this.store.keyOfUid(uid);
    return key === undefined ? undefined : this.store.get(key);
  }

  async consume(id: string): Promise<void> {
    const p = this.store.get(this.key(id));
    if (p) p.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.store.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.store.revokeGrant(grantId);
  }
}
