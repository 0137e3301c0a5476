/**
 * Large transfers in progress, published by whoever runs them (the file system, the upload and
 * download commands) for whoever lists them (a Transfers view later). Holds the live list and
 * fires on every start, progress report and end.
 */
import * as vscode from 'vscode';
import type { Progress } from '../core/model';

export type TransferDirection = 'upload' | 'download';

export interface TransferRecord {
  readonly id: number;
  readonly direction: TransferDirection;
  /** `firecrest://...` of the remote side. */
  readonly remote: string;
  /** Local path, when there is one (editor saves have none). */
  readonly local?: string;
  readonly startedAt: number;
  progress?: Progress;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  error?: string;
}

/** Handle of one running transfer. */
export interface TransferHandle {
  report(p: Progress): void;
  /** Ends the transfer: no error = done. */
  end(error?: unknown, cancelled?: boolean): void;
}

/** The transfers of this window (the running ones and the last finished few). */
export class TransferEvents implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TransferRecord>();
  readonly onDidChange = this.emitter.event;
  private readonly records: TransferRecord[] = [];
  private next = 1;

  constructor(private readonly keepFinished = 20) {}

  /** Running transfers first, then finished ones, newest first. */
  list(): readonly TransferRecord[] {
    return [...this.records].sort((a, b) => Number(a.state !== 'running') - Number(b.state !== 'running') || b.startedAt - a.startedAt);
  }

  start(direction: TransferDirection, remote: string, local?: string): TransferHandle {
    const record: TransferRecord = { id: this.next++, direction, remote, local, startedAt: Date.now(), state: 'running' };
    this.records.push(record);
    this.emitter.fire(record);
    return {
      report: (p) => {
        record.progress = p;
        this.emitter.fire(record);
      },
      end: (error, cancelled) => {
        record.state = cancelled ? 'cancelled' : error === undefined ? 'done' : 'failed';
        if (error !== undefined && !cancelled) record.error = error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed';
        this.emitter.fire(record);
        this.prune();
      },
    };
  }

  private prune(): void {
    const finished = this.records.filter((r) => r.state !== 'running');
    for (const old of finished.slice(0, Math.max(0, finished.length - this.keepFinished))) this.records.splice(this.records.indexOf(old), 1);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
