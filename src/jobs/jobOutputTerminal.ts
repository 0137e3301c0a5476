/**
 * The Follow Output terminal: a Pseudoterminal fed by an OutputStreamer. It converts `\n` to
 * `\r\n` (a terminal needs both), says how the job ended, and stops on its own. What it emitted is
 * kept for the host tests (`emitted`), as the terminal's own buffer is not readable.
 */
import * as vscode from 'vscode';
import type { FirecrestApi } from '../core/api';
import type { Job } from '../core/model';
import { OutputStreamer, type StreamResult } from './outputStreamer';
import { messageOf } from '../core/errors';

export interface FollowTarget {
  profile: string;
  system: string;
  jobId: string;
  path: string;
  stream: 'stdout' | 'stderr';
}

const toTerminal = (s: string) => s.replace(/\r?\n/g, '\r\n');

export class JobOutputTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private readonly abort = new AbortController();
  private streamer: OutputStreamer | undefined;
  /** Everything written to the terminal (test hook). */
  emitted = '';
  result: StreamResult | undefined;
  readonly done: Promise<StreamResult>;
  private resolveDone!: (r: StreamResult) => void;

  constructor(
    private readonly client: FirecrestApi,
    readonly target: FollowTarget,
    private readonly chunkBytes: number,
    private readonly describeEnd: (job: Job) => string,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  get stats(): OutputStreamer['stats'] | undefined {
    return this.streamer?.stats;
  }

  open(): void {
    const t = this.target;
    this.emit(vscode.l10n.t('\x1b[2mFollowing {0} of job {1} on {2}: {3}\x1b[0m\r\n', t.stream, t.jobId, t.system, t.path));
    this.streamer = new OutputStreamer({
      client: this.client,
      system: t.system,
      jobId: t.jobId,
      path: t.path,
      signal: this.abort.signal,
      chunkBytes: this.chunkBytes,
      write: (text) => this.emit(toTerminal(text)),
      note: (text) => this.emit(`\x1b[2m${text}\x1b[0m\r\n`),
      askBacklog: (size) => this.askBacklog(size),
    });
    this.streamer.run().then(
      (r) => this.finish(r),
      (e: unknown) => {
        this.emit(`\r\n\x1b[31mStopped: ${messageOf(e)}\x1b[0m\r\n`);
        this.finish({ reason: 'stopped' });
      },
    );
  }

  close(): void {
    this.abort.abort();
  }

  handleInput(data: string): void {
    // Ctrl+C stops following; the terminal stays open with what was printed.
    if (data === '\x03' && !this.result) this.abort.abort();
  }

  private finish(r: StreamResult): void {
    this.result = r;
    if (r.reason === 'ended' && r.job) this.emit(`\r\n\x1b[1mJob ${this.target.jobId} ${this.describeEnd(r.job)}.\x1b[0m\r\n`);
    else if (r.reason === 'cancelled') this.emit(vscode.l10n.t('\x1b[2mNot streamed.\x1b[0m\r\n'));
    else this.emit(vscode.l10n.t('\r\n\x1b[2mStopped following.\x1b[0m\r\n'));
    this.resolveDone(r);
  }

  private async askBacklog(size: number): Promise<'tail' | 'all' | 'cancel'> {
    const tail = vscode.l10n.t('Show the last 1 MB');
    const all = vscode.l10n.t('Show everything');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('The {0} of job {1} is already {2} MB. Stream all of it?', this.target.stream, this.target.jobId, (size / 1048576).toFixed(0)),
      { modal: true },
      tail,
      all,
    );
    return pick === tail ? 'tail' : pick === all ? 'all' : 'cancel';
  }

  private emit(s: string): void {
    this.emitted += s;
    this.writeEmitter.fire(s);
  }
}
