/**
 * The data behind the Systems view. Everything is fetched on first expand and kept until Refresh
 * or Retry; a failure is kept too (shown as an error node) so a broken service is not hammered by
 * every repaint. Concurrent expands of the same node share one request.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../core/client';
import type { System } from '../../core/model';
import type { ConnectionService } from '../../common/services';

type Entry = { promise: Promise<unknown> } & ({ state: 'loading' } | { state: 'done'; value: unknown } | { state: 'failed'; error: unknown });

export class SystemsModel implements vscode.Disposable {
  private readonly cache = new Map<string, Entry>();
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private forceSystems = false;

  constructor(readonly connections: ConnectionService) {}

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
      (value) => Object.assign(entry, { state: 'done', value }),
      (error: unknown) => Object.assign(entry, { state: 'failed', error }),
    );
    return promise;
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
