/**
 * What the cluster knows that a batch script refers to (partitions, reservations, the user's
 * accounts and groups), cached per profile/system. Editors read the cache synchronously; a missing
 * or stale entry starts at most one background refresh (single-flight), and a failed refresh is
 * not retried before the TTL is over either, so typing never turns into requests.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { ConnectionService, Log } from '../common/services';
import type { LiveSnapshot } from '../core/sbatch/liveChecks';
import type { Reservation } from '../core/model';
import { messageOf } from '../core/errors';

/** Which cluster a script is checked against. */
export interface SbatchTarget {
  profile: string;
  system: string;
}

export type { LiveSnapshot } from '../core/sbatch/liveChecks';

interface Entry {
  snapshot?: LiveSnapshot;
  /** When the last attempt (successful or not) started; gates the next one. */
  attemptedAt: number;
  inFlight?: Promise<LiveSnapshot | undefined>;
}

export const targetKey = (t: SbatchTarget): string => `${t.profile}/${t.system}`;

export class SbatchLiveData extends Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly _onDidRefresh = this._register(new vscode.EventEmitter<SbatchTarget>());
  /** Fires after a refresh brought new data for a target. */
  readonly onDidRefresh = this._onDidRefresh.event;
  /** Refreshes started (each costs three API requests); tests and bench read it. */
  refreshCount = 0;

  /** Refreshes under way. */
  get refreshing(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.inFlight) n++;
    return n;
  }

  constructor(
    private readonly connections: ConnectionService,
    private readonly log: Log,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    super();
    // Signing in or out changes what may be fetched: forget failures so a fresh sign-in is seen.
    this._register(connections.onDidChange(() => {
      for (const e of this.entries.values()) if (!e.snapshot && !e.inFlight) e.attemptedAt = -Infinity;
    }));
  }

  /**
   * The cached snapshot (possibly stale), and a background refresh when it is missing or older
   * than the TTL. Never fetches for a signed-out profile.
   */
  peek(target: SbatchTarget): LiveSnapshot | undefined {
    const entry = this.entries.get(targetKey(target));
    if (!entry || this.now() - entry.attemptedAt >= this.ttlMs) void this.refresh(target);
    return entry?.snapshot;
  }

  /** The snapshot, fetched now when there is none yet or it is stale (shared with a running refresh). */
  async get(target: SbatchTarget): Promise<LiveSnapshot | undefined> {
    const entry = this.entries.get(targetKey(target));
    if (entry?.inFlight) return entry.inFlight;
    if (entry?.snapshot && this.now() - entry.attemptedAt < this.ttlMs) return entry.snapshot;
    if (entry && !entry.snapshot && this.now() - entry.attemptedAt < this.ttlMs) return undefined;
    return this.refresh(target);
  }

  /** True when the profile has a usable sign-in (no request is made otherwise). */
  canFetch(profile: string): boolean {
    const info = this.connections.connections().find((c) => c.profile.name === profile);
    return !!info && info.state !== 'signed-out';
  }

  /** Drops everything cached (command "refresh", tests). */
  clear(): void {
    this.entries.clear();
  }

  private refresh(target: SbatchTarget): Promise<LiveSnapshot | undefined> {
    const key = targetKey(target);
    const entry = this.entries.get(key) ?? { attemptedAt: -Infinity };
    this.entries.set(key, entry);
    if (entry.inFlight) return entry.inFlight;
    if (!this.canFetch(target.profile)) return Promise.resolve(entry.snapshot);
    entry.attemptedAt = this.now();
    this.refreshCount++;
    entry.inFlight = this.fetch(target)
      .then((snapshot) => {
        entry.snapshot = snapshot;
        this._onDidRefresh.fire(target);
        return snapshot;
      })
      .catch((e: unknown) => {
        this.log.debug(`live data for ${key} unavailable: ${messageOf(e)}`);
        return entry.snapshot;
      })
      .finally(() => {
        entry.inFlight = undefined;
      });
    return entry.inFlight;
  }

  private async fetch(target: SbatchTarget): Promise<LiveSnapshot> {
    const client = await this.connections.client(target.profile);
    const [partitions, reservations, userInfo] = await Promise.all([
      client.partitions(target.system),
      // Reservations and accounts refine the checks; their absence must not hide the partitions.
      client.reservations(target.system).catch(() => [] as Reservation[]),
      client.userInfo(target.system).catch(() => undefined),
    ]);
    return { partitions, reservations, userInfo, fetchedAt: this.now() };
  }
}
