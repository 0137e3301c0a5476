/**
 * The one command wrapper: every command runs through it. It catches and logs with context,
 * stays silent when the user cancelled, and offers "Show Log" on failure.
 */
import * as vscode from 'vscode';
import { isCancellation, messageOf } from '../core/errors';
import type { Log } from './services';

export type CommandHandler = (...args: unknown[]) => unknown;

/** Registers `id` so that failures become one clear message instead of an unhandled rejection. */
export function registerCommand(id: string, log: Log, handler: CommandHandler): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (e) {
      if (isCancellation(e) || e instanceof vscode.CancellationError) return undefined;
      reportError(log, id, e);
      return undefined;
    }
  });
}

/** Logs a failure with the command it came from and shows it with a "Show Log" action. */
export function reportError(log: Log, context: string, e: unknown): void {
  const message = messageOf(e);
  log.error(`${context}: ${message}`);
  // What the server said in its own words (the message is ours), for a bug report.
  const said = (e as { causedBy?: unknown }).causedBy;
  if (Array.isArray(said) && said.length) log.info(`${context}: the server said: ${said.join(' | ')}`);
  if (e instanceof Error && e.stack) log.debug(e.stack);
  const showLog = vscode.l10n.t('Show Log');
  void vscode.window.showErrorMessage(message, showLog).then((pick) => {
    if (pick === showLog) log.show();
  });
}
