/**
 * The agent tools as VS Code language-model tools (loaded on first use, a bundle of its own with
 * the tool definitions and zod). `prepare` says what a call will do; for a write it always asks the
 * user to confirm (with the script, the system and the partition), even when it could not look
 * everything up: no write runs unconfirmed. `invoke` answers in compact text, a failure in one
 * sentence.
 */
import * as vscode from 'vscode';
import { confirmationOf, runTool, toolNamed, type ToolDefinition } from '../core/tools/index';
import { messageOf } from '../core/errors';
import type { ConnectionService, Log } from '../common/services';
import { toolContext } from './toolContext';

function definition(name: string): ToolDefinition {
  const def = toolNamed(name);
  if (!def) throw new Error(vscode.l10n.t('The tool {0} is not known to this version of the extension.', name));
  return def;
}

function aborter(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const sub = token.onCancellationRequested(() => { ac.abort(); });
  if (token.isCancellationRequested) ac.abort();
  return { signal: ac.signal, dispose: () => { sub.dispose(); } };
}

export async function prepare(connections: ConnectionService, log: Log, name: string, input: unknown, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
  const def = definition(name);
  const invocationMessage = vscode.l10n.t('FirecREST: {0}', def.title);
  if (def.kind === 'read') return { invocationMessage };
  const cancel = aborter(token);
  try {
    const c = await confirmationOf(def, input, toolContext(connections, cancel.signal));
    if (c) return { invocationMessage, confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) } };
  } catch (e) {
    log.info(`${name}: could not prepare the confirmation: ${messageOf(e)}`);
    return {
      invocationMessage,
      confirmationMessages: { title: def.title, message: new vscode.MarkdownString(vscode.l10n.t('This could not be checked before asking: {0}\n\nRun it anyway? It is checked again and refused if it cannot be done.', messageOf(e))) },
    };
  } finally {
    cancel.dispose();
  }
  return { invocationMessage, confirmationMessages: { title: def.title, message: new vscode.MarkdownString(def.description) } };
}

export async function invoke(connections: ConnectionService, log: Log, name: string, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
  const def = definition(name);
  const cancel = aborter(token);
  try {
    const r = await runTool(def, input, toolContext(connections, cancel.signal));
    log.info(`${name}: ${r.isError ? `refused or failed: ${r.text}` : `answered (${r.text.length} characters)`}`);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.text)]);
  } finally {
    cancel.dispose();
  }
}
