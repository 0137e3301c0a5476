/**
 * The `Log` of services.ts on the ONE "FirecREST" LogOutputChannel. Every line, including
 * formatted arguments and error stacks, goes through core's `redact` with the secrets currently
 * known to the extension, so no caller can leak a token or a client secret by accident.
 */
import { format } from 'node:util';
import * as vscode from 'vscode';
import { redact } from '../core/http/redact';
import type { Log } from './services';

/** Literal secrets to scrub besides the patterns `redact` knows; shared by every tagged logger. */
export class SecretRegistry {
  private readonly values = new Set<string>();
  add(secret: string | undefined): void {
    if (secret) this.values.add(secret);
  }
  delete(secret: string | undefined): void {
    if (secret) this.values.delete(secret);
  }
  list(): string[] {
    return [...this.values];
  }
}

export class OutputLog implements Log {
  constructor(
    private readonly channel: vscode.LogOutputChannel,
    readonly secrets: SecretRegistry,
    private readonly tag?: string,
  ) {}

  static create(name = 'FirecREST'): { log: OutputLog; channel: vscode.LogOutputChannel } {
    const channel = vscode.window.createOutputChannel(name, { log: true });
    return { log: new OutputLog(channel, new SecretRegistry()), channel };
  }

  trace(message: string, ...args: unknown[]): void {
    this.channel.trace(this.line(message, args));
  }
  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(this.line(message, args));
  }
  info(message: string, ...args: unknown[]): void {
    this.channel.info(this.line(message, args));
  }
  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(this.line(message, args));
  }
  error(message: string | Error, ...args: unknown[]): void {
    // An Error would be printed with its stack by the channel itself, unredacted: format it here.
    const text = message instanceof Error ? (message.stack ?? message.message) : message;
    this.channel.error(this.line(text, args));
  }
  withTag(tag: string): Log {
    return new OutputLog(this.channel, this.secrets, this.tag ? `${this.tag}/${tag}` : tag);
  }
  show(): void {
    this.channel.show(true);
  }

  private line(message: string, args: unknown[]): string {
    const text = args.length ? format(message, ...args) : message;
    const tagged = this.tag ? `[${this.tag}] ${text}` : text;
    return redact(tagged, this.secrets.list());
  }
}
