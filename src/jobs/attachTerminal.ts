/**
 * The Attach terminal: a Pseudoterminal that runs each line typed in it inside a running job
 * (runInJob) and shows its output and exit status. Line editing: printable input, Backspace,
 * Enter; Ctrl-C drops the line (or stops waiting for a command: it goes on in the job, its output
 * is not shown); Ctrl-D or `exit` closes. When the job is no longer running the terminal says so
 * and takes no more commands. What it wrote is kept for the host tests (`emitted`).
 */
import * as vscode from 'vscode';
import type { FirecrestApi } from '../core/api';
import { runInJob } from './runInJob';
import { messageOf } from '../core/errors';

const toTerminal = (s: string) => s.replace(/\r?\n/g, '\r\n');

export interface AttachTarget {
  system: string;
  jobId: string;
  workingDirectory: string;
}

export class AttachTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  /** Everything written to the terminal (test hook). */
  emitted = '';
  /** Commands run so far (test hook). */
  ran = 0;
  private line = '';
  private running: AbortController | undefined;
  private ended = false;

  constructor(private readonly client: FirecrestApi, readonly target: AttachTarget) {}

  private get prompt(): string {
    return `\x1b[1mjob ${this.target.jobId}\x1b[0m$ `;
  }

  open(): void {
    const t = this.target;
    this.emit(vscode.l10n.t('\x1b[2mCommands run inside job {0} on {1} (srun --overlap), in {2}. Ctrl-D or "exit" closes.\x1b[0m\r\n', t.jobId, t.system, t.workingDirectory));
    this.emit(this.prompt);
  }

  close(): void {
    this.running?.abort();
    this.ended = true;
  }

  handleInput(data: string): void {
    for (const ch of data) {
      if (this.ended) return;
      if (ch === '\x03') {
        if (this.running) {
          this.running.abort();
          this.emit(vscode.l10n.t('^C\r\n\x1b[2m(the command goes on in the job; its output is not shown)\x1b[0m\r\n'));
        } else {
          this.line = '';
          this.emit(`^C\r\n${this.prompt}`);
        }
      } else if (this.running) {
        continue; // Typing ahead is not kept while a command runs.
      } else if (ch === '\x04') {
        if (this.line === '') this.finish();
      } else if (ch === '\r' || ch === '\n') {
        const command = this.line.trim();
        this.line = '';
        this.emit('\r\n');
        if (command === 'exit') this.finish();
        else if (command === '') this.emit(this.prompt);
        else void this.run(command);
      } else if (ch === '\x7f' || ch === '\b') {
        if (this.line.length > 0) {
          this.line = this.line.slice(0, -1);
          this.emit('\b \b');
        }
      } else if (ch >= ' ') {
        this.line += ch;
        this.emit(ch);
      }
    }
  }

  private async run(command: string): Promise<void> {
    const ctl = new AbortController();
    this.running = ctl;
    const t = this.target;
    try {
      const r = await runInJob(this.client, t.system, t.jobId, t.workingDirectory, command, ctl.signal);
      if (ctl.signal.aborted) return;
      if (r.truncated) this.emit(vscode.l10n.t('\x1b[2m(only the end of the output)\x1b[0m\r\n'));
      this.emit(toTerminal(r.output));
      if (r.output !== '' && !r.output.endsWith('\n')) this.emit('\r\n');
      if (r.exitCode !== 0) this.emit(`\x1b[33m[exit ${r.exitCode ?? '?'}]\x1b[0m\r\n`);
    } catch (e) {
      if (ctl.signal.aborted) return;
      this.emit(`\x1b[31m${toTerminal(messageOf(e))}\x1b[0m\r\n`);
      // A job that ended takes no more commands.
      const job = await this.client.job(t.system, t.jobId).catch(() => undefined);
      if (job && job.stateClass !== 'running') {
        this.emit(vscode.l10n.t('\x1b[2mJob {0} is {1}: no more commands can run in it.\x1b[0m\r\n', t.jobId, job.state.toLowerCase()));
        this.ended = true;
        return;
      }
    } finally {
      this.ran++;
      if (this.running === ctl) this.running = undefined;
    }
    if (!this.ended) this.emit(this.prompt);
  }

  private finish(): void {
    this.ended = true;
    this.running?.abort();
    this.closeEmitter.fire();
  }

  private emit(s: string): void {
    this.emitted += s;
    this.writeEmitter.fire(s);
  }
}
