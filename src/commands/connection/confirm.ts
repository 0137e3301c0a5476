/** The modal question before a connection command forgets something. */
import * as vscode from 'vscode';
import { fields, flag } from '../../common/commandArgs';

/**
 * True when the user confirmed `question` with `action`, or when the caller (a script, a test)
 * passed `{ confirmed: true }` as the command argument. People always see the question.
 */
export async function confirmed(arg: unknown, question: string, action: string): Promise<boolean> {
  if (fields(arg, { confirmed: flag }).confirmed === true) return true;
  return (await vscode.window.showWarningMessage(question, { modal: true }, action)) === action;
}
