/**
 * The data behind the Systems view. Everything is fetched on first expand and kept until Refresh
 * or Retry; a failure is kept too (shown as an error node) so a broken service is not hammered by
 * every repaint. Concurrent expands of the same node share one request.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../core/client';
import type { System } from '../../core/model';
import type { ConnectionService } from '../../common/services';
import { isPassing } from '../../common/failureKinds';

const HEAL_FIRST_MS = 10_000;
const HEAL_MAX_MS = 60_000;
/** The partitions' load (node and all-users job listings) is asked for again this often while the view is visible. */
export const LOAD_REFRESH_MS = 60_000;
const LOAD_KEYS = /^(queue|nodes)\//;

type Entry = { promise: Promise<unknown> } & ({ state: 'loading' } | { state: 'done'; value: unknown } | { state: 'failed'; error: unknown });

export class SystemsModel implements vscode.Disposable {
  private readonly cache = new Map<string, Entry>();
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private forceSystems = false;
  private visible = false;
  private healTimer: NodeJS.Timeout | undefined;
  private healDelay = HEAL_FIRST_MS;
  private loadTimer: NodeJS.Timeout | undefined;

  constructor(readonly connections: ConnectionService) {}

  /**
   * While the view is visible, answers that failed for a passing reason (the server away, a
   * time-out) are asked for again by themselves, after 10 s, then 20, 40, at most a minute apart,
   * so the view recovers without Retry once the server answers.
   */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible) {
      this.scheduleHeal();
      // Only what is expanded is asked for again: the tree asks for the children it shows.
      this.loadTimer ??= setInterval(() => this.expireLoad(), LOAD_REFRESH_MS);
    } else {
      clearTimeout(this.healTimer);
      this.healTimer = undefined;
      clearInterval(this.loadTimer);
      this.loadTimer = undefined;
    }
  }

  private scheduleHeal(): void {
    if (!this.visible || this.healTimer) return;
    if (![...this.cache.values()].some((e) => e.state === 'failed' && isPassing(e.error))) return;
    this.healTimer = setTimeout(() => {
      this.healTimer = undefined;
      let dropped = false;
      for (const [k, e] of this.cache) {
        if (e.state === 'failed' && isPassing(e.error)) {
          this.cache.delete(k);
          dropped = true;
        }
      }
      this.healDelay = Math.min(HEAL_MAX_MS, this.healDelay * 2);
      if (dropped) this._onDidChange.fire();
    }, this.healDelay);
  }

  /** Drops the load listings that were answered, so that the next paint asks for them again. */
  private expireLoad(): void {
    let dropped = false;
    for (const [k, e] of this.cache) {
      if (LOAD_KEYS.test(k) && e.state === 'done') {
        this.cache.delete(k);
        dropped = true;
      }
    }
    if (dropped) this._onDidChange.fire();
  }

  profiles(): string[] {
    return this.connections.connections().map((c) => c.profile.name);
  }

  systems(profile: string): Promise<System[]> {
    return this.get(`systems/${profile}`, async () => {
      const force = this.forceSystems;
      this.forceSystems = false;
      return this.connections.systems(profile, force);
    });
  }

  /** One status call (`partitions`, `nodes`, ...) of a system, cached under `key`. */
  fetch<T>(profile: string, system: string, what: string, call: (client: FirecrestClient) => Promise<T>): Promise<T> {
    return this.get(`${what}/${profile}/${system}`, async () => call(await this.connections.client(profile)));
  }

  /** Drops every cached answer (the view's Refresh). */
  refresh(): void {
    this.cache.clear();
    this.forceSystems = true;
    this._onDidChange.fire();
  }

  /** Drops the failed answers only (Retry on an error node) and repaints. */
  retryFailed(): void {
    for (const [k, e] of this.cache) if (e.state === 'failed') this.cache.delete(k);
    this._onDidChange.fire();
  }

  private get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key);
    if (hit) return hit.promise as Promise<T>;
    const promise = load();
    const entry: Entry = { promise, state: 'loading' };
    this.cache.set(key, entry);
    promise.then(
      (value) => {
        Object.assign(entry, { state: 'done', value });
        this.healDelay = HEAL_FIRST_MS;
      },
      (error: unknown) => {
        Object.assign(entry, { state: 'failed', error });
        this.scheduleHeal();
      },
    );
    return promise;
  }

  dispose(): void {
    clearTimeout(this.healTimer);
    clearInterval(this.loadTimer);
    this._onDidChange.dispose();
  }
}
