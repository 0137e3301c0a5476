/**
 * Every transfer of this window and the finished ones of earlier sessions, published by whoever
 * runs them (the file system, the upload/download and archive commands) for whoever shows them
 * (the Transfer Centre, the status bar). Holds the list, coalesces progress reports into at most
 * one change event per `throttleMs`, keeps the finished records in a Memento until cleared, and
 * routes Cancel, Retry and Resume to whoever can do them. Types only from `vscode`: unit tests run
 * it without a VS Code.
 */
import * as l10n from '@vscode/l10n';
import type * as vscode from 'vscode';
import type { Progress } from '../core/model';

/** Staged or direct byte transfers, and the server-side file operations that run as jobs. */
export type TransferKind = 'upload' | 'download' | 'move' | 'copy' | 'delete' | 'compress' | 'extract';
/** Kept for publishers that only move bytes. */
export type TransferDirection = 'upload' | 'download';
export type TransferState = 'running' | 'done' | 'failed' | 'cancelled';

/** What a publisher says about a transfer when it starts. */
export interface TransferStart {
  kind: TransferKind;
  /** `firecrest://...` of the remote side (a download's source, an upload's target, an operation's source). */
  remote: string;
  /** Local path, when there is one (editor saves and opens have none). */
  local?: string;
  /** Where the data comes from and goes to, as shown; derived from `remote`/`local` when omitted. */
  source?: string;
  destination?: string;
  /** Bytes, when known before the first progress report. */
  size?: number;
  /** Stops the running transfer (usually its AbortController). */
  cancel?: () => void;
  /** Runs the same transfer again, in this session (a publisher without a runner for its kind). */
  retry?: () => Promise<unknown>;
}

/** One transfer as listed (plain JSON: finished ones are persisted as they are). */
export interface TransferRecord {
  readonly id: number;
  readonly kind: TransferKind;
  readonly remote: string;
  readonly local?: string;
  readonly source: string;
  readonly destination?: string;
  readonly startedAt: number;
  endedAt?: number;
  bytesTotal?: number;
  progress?: Progress;
  state: TransferState;
  error?: string;
  /** Outcome of the SHA-256 comparison, when the transfer made one. */
  verified?: boolean;
  sha256?: string;
  /** Why `verified` is false (e.g. verification off, checksum timed out). */
  note?: string;
}

/** Handle of one running transfer. */
export interface TransferHandle {
  readonly id: number;
  report(p: Progress): void;
  /** Ends the transfer: no error = done. */
  end(error?: unknown, cancelled?: boolean): void;
}

/** Re-runs finished transfers of one kind from their record (also records of earlier sessions). */
export interface TransferRunner {
  canRetry(record: TransferRecord): boolean;
  /** True when an interrupted upload can continue from the parts the staging area already has. */
  canResume?(record: TransferRecord): boolean;
  rerun(record: TransferRecord, resume: boolean): Promise<unknown>;
}

export interface TransferChange {
  /** Records that started, progressed or ended since the last event (each once, current state). */
  changed: readonly TransferRecord[];
  removed: readonly number[];
}

/** What can be done with a record right now. */
export interface TransferActions {
  cancel: boolean;
  retry: boolean;
  resume: boolean;
}

export interface TransferEventsOptions {
  /** Where finished records survive a reload (the extension's globalState; never the workspace). */
  store?: Pick<vscode.Memento, 'get' | 'update'>;
  /** Finished records kept (oldest dropped first). */
  keepFinished?: number;
  /** At most one change event per this many ms while only progress arrives. */
  throttleMs?: number;
  /** Starts and ends are written to the store together, this many ms after the first (default 1000). */
  saveDelayMs?: number;
  /** Timer seam for tests. */
  setTimer?: (fn: () => void, ms: number) => { dispose(): void };
  now?: () => number;
}

const STORE_KEY = 'firecrest.transfers';
const interrupted = (): string => l10n.t('Interrupted: the window was closed or reloaded while it ran.');

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed';
}

function defaultTimer(fn: () => void, ms: number): { dispose(): void } {
  const t = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(t) };
}

/** The transfers of this window and the finished ones remembered from earlier sessions. */
export class TransferEvents {
  private readonly listeners = new Set<(e: TransferChange) => unknown>();
  private readonly records = new Map<number, TransferRecord>();
  private readonly live = new Map<number, Pick<TransferStart, 'cancel' | 'retry'>>();
  private readonly runners = new Map<TransferKind, TransferRunner>();
  /** A retried record is replaced by the first new one of the same transfer. */
  private readonly replacing = new Map<string, number>();
  private readonly dirty = new Set<number>();
  private readonly gone = new Set<number>();
  private timer: { dispose(): void } | undefined;
  private saveTimer: { dispose(): void } | undefined;
  private lastFlush = -Infinity;
  private next = 1;
  private disposed = false;
  private readonly keepFinished: number;
  private readonly throttleMs: number;
  private readonly setTimer: NonNullable<TransferEventsOptions['setTimer']>;
  private readonly now: () => number;

  constructor(private readonly options: TransferEventsOptions = {}) {
    this.keepFinished = options.keepFinished ?? 100;
    this.throttleMs = options.throttleMs ?? 250;
    this.setTimer = options.setTimer ?? defaultTimer;
    this.now = options.now ?? Date.now;
    for (const r of options.store?.get<TransferRecord[]>(STORE_KEY, []) ?? []) {
      if (!r || typeof r.id !== 'number') continue;
      // Running when the window went away: it did not finish.
      const record = r.state === 'running' ? { ...r, state: 'failed' as const, error: interrupted(), endedAt: r.endedAt ?? r.startedAt } : r;
      this.records.set(record.id, record);
      this.next = Math.max(this.next, record.id + 1);
    }
  }

  /** Fires with what changed; compatible with `vscode.Event`. */
  readonly onDidChange = (listener: (e: TransferChange) => unknown, thisArgs?: unknown, disposables?: { dispose(): unknown }[]): vscode.Disposable => {
    const bound = (e: TransferChange): unknown => listener.call(thisArgs, e);
    this.listeners.add(bound);
    const d = { dispose: () => void this.listeners.delete(bound) };
    disposables?.push(d);
    return d;
  };

  /** Running transfers first, then finished ones, newest first. */
  list(): TransferRecord[] {
    return [...this.records.values()].sort((a, b) => Number(a.state !== 'running') - Number(b.state !== 'running') || b.startedAt - a.startedAt || b.id - a.id);
  }

  get(id: number): TransferRecord | undefined {
    return this.records.get(id);
  }

  running(): TransferRecord[] {
    return this.list().filter((r) => r.state === 'running');
  }

  start(what: TransferStart): TransferHandle {
    const up = what.kind === 'upload';
    const source = what.source ?? (up ? (what.local ?? '(editor)') : what.remote);
    const destination = what.destination ?? (up ? what.remote : what.kind === 'download' ? what.local : undefined);
    const record: TransferRecord = {
      id: this.next++, kind: what.kind, remote: what.remote, local: what.local, source, destination,
      startedAt: this.now(), bytesTotal: what.size, state: 'running',
    };
    this.records.set(record.id, record);
    this.live.set(record.id, { cancel: what.cancel, retry: what.retry });
    const replaced = this.replacing.get(this.transferKey(record));
    if (replaced !== undefined) {
      this.replacing.delete(this.transferKey(record));
      this.remove([replaced]);
    }
    this.touch(record.id, true);
    this.persistSoon();
    let ended = false;
    return {
      id: record.id,
      report: (p) => {
        if (ended) return;
        record.progress = p.partsFinished || !record.progress?.partsFinished ? p : { ...p, partsFinished: record.progress.partsFinished };
        if (p.bytesTotal !== undefined) record.bytesTotal = p.bytesTotal;
        if (p.verified !== undefined) {
          record.verified = p.verified;
          record.sha256 = p.sha256;
          record.note = p.verified ? undefined : p.message;
        }
        this.touch(record.id, false);
      },
      end: (error, cancelled) => {
        if (ended) return;
        ended = true;
        record.state = cancelled ? 'cancelled' : error === undefined ? 'done' : 'failed';
        record.endedAt = this.now();
        if (error !== undefined && !cancelled) record.error = describeError(error);
        const live = this.live.get(record.id);
        // Cancelling a finished transfer means nothing; a retry closure stays for this session.
        if (live) this.live.set(record.id, { retry: live.retry });
        this.prune();
        this.touch(record.id, true);
        this.persistSoon();
      },
    };
  }

  /** Lets finished transfers of `kind` be retried (and resumed) from their record. */
  setRunner(kind: TransferKind, runner: TransferRunner): vscode.Disposable {
    this.runners.set(kind, runner);
    return { dispose: () => void (this.runners.get(kind) === runner && this.runners.delete(kind)) };
  }

  actions(record: TransferRecord): TransferActions {
    const live = this.live.get(record.id);
    const runner = this.runners.get(record.kind);
    const finished = record.state !== 'running';
    const unfinished = record.state === 'failed' || record.state === 'cancelled';
    return {
      cancel: record.state === 'running' && !!live?.cancel,
      retry: finished && (!!live?.retry || !!runner?.canRetry(record)),
      resume: unfinished && !!runner?.canResume?.(record),
    };
  }

  /** Stops a running transfer; false when it cannot be stopped (or is not running). */
  cancel(id: number): boolean {
    const r = this.records.get(id);
    const cancel = r?.state === 'running' ? this.live.get(id)?.cancel : undefined;
    cancel?.();
    return !!cancel;
  }

  /**
   * Runs a finished transfer again (`resume`: from the parts already sent). Resolves when the new
   * run ends; the new record replaces this one as soon as it starts.
   */
  async retry(id: number, resume = false): Promise<void> {
    const r = this.records.get(id);
    if (!r) throw new Error(l10n.t('There is no transfer {0}.', id));
    if (r.state === 'running') throw new Error(l10n.t('The transfer is still running.'));
    const runner = this.runners.get(r.kind);
    const closure = this.live.get(id)?.retry;
    if (resume && !runner?.canResume?.(r)) throw new Error(l10n.t('This transfer cannot be resumed: no parts of it are kept. Retry it instead.'));
    if (!resume && !closure && !runner?.canRetry(r)) throw new Error(l10n.t('This transfer cannot be run again from here.'));
    const key = this.transferKey(r);
    this.replacing.set(key, id);
    try {
      await (closure && !resume ? closure() : runner!.rerun(r, resume));
    } finally {
      if (this.replacing.get(key) === id) this.replacing.delete(key);
    }
  }

  /** Forgets every finished transfer (here and in the store). */
  async clear(): Promise<number[]> {
    const ids = [...this.records.values()].filter((r) => r.state !== 'running').map((r) => r.id);
    this.remove(ids);
    await this.persist();
    return ids;
  }

  private transferKey(r: Pick<TransferRecord, 'kind' | 'source' | 'destination'>): string {
    return JSON.stringify([r.kind, r.source, r.destination ?? '']);
  }

  private remove(ids: number[]): void {
    for (const id of ids) {
      if (!this.records.delete(id)) continue;
      this.live.delete(id);
      this.dirty.delete(id);
      this.gone.add(id);
    }
    if (ids.length) this.flush();
  }

  private prune(): void {
    const finished = [...this.records.values()].filter((r) => r.state !== 'running').sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
    const old = finished.slice(0, Math.max(0, finished.length - this.keepFinished)).map((r) => r.id);
    for (const id of old) {
      this.records.delete(id);
      this.live.delete(id);
      this.gone.add(id);
    }
  }

  /** Marks a record changed; starts and ends go out at once, progress at most every throttleMs. */
  private touch(id: number, now: boolean): void {
    this.dirty.add(id);
    if (now || this.now() - this.lastFlush >= this.throttleMs) {
      this.flush();
      return;
    }
    this.timer ??= this.setTimer(() => {
      this.timer = undefined;
      this.flush();
    }, Math.max(0, this.throttleMs - (this.now() - this.lastFlush)));
  }

  private flush(): void {
    this.timer?.dispose();
    this.timer = undefined;
    if (this.disposed || (this.dirty.size === 0 && this.gone.size === 0)) return;
    this.lastFlush = this.now();
    const changed = [...this.dirty].map((id) => this.records.get(id)).filter((r): r is TransferRecord => !!r);
    const removed = [...this.gone];
    this.dirty.clear();
    this.gone.clear();
    const event: TransferChange = { changed, removed };
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // A failing listener must not stop the others or the transfer that reported.
      }
    }
  }

  /** A folder of a thousand files makes two thousand starts and ends: one write per saveDelayMs. */
  private persistSoon(): void {
    if (!this.options.store || this.saveTimer) return;
    this.saveTimer = this.setTimer(() => {
      this.saveTimer = undefined;
      void this.persist();
    }, this.options.saveDelayMs ?? 1000);
  }

  private persist(): Thenable<void> | undefined {
    this.saveTimer?.dispose();
    this.saveTimer = undefined;
    const store = this.options.store;
    if (!store) return undefined;
    // Progress of a running one is not worth a write; its start and end are.
    const all = [...this.records.values()].map((r) => (r.progress?.partsFinished && r.progress.partsFinished.length > 1000 ? { ...r, progress: { ...r.progress, partsFinished: undefined } } : r));
    return store.update(STORE_KEY, all).then(undefined, () => undefined);
  }

  dispose(): void {
    this.timer?.dispose();
    this.timer = undefined;
    // The window closes: what is pending goes to the store now.
    if (this.saveTimer) void this.persist();
    this.disposed = true;
    this.listeners.clear();
  }
}
