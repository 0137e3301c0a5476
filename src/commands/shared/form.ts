/**
 * A multi-step input form: one input box per field, numbered in the title, each validated as the
 * user types. A field given in the command's argument skips its box but passes the same check, so
 * scripted calls (and tests) go through the same rules as typed answers.
 */
import { record } from '../../common/commandArgs';
import * as vscode from 'vscode';
import { InvalidInputError } from '../../core/errors';

export interface FormField {
  key: string;
  prompt: string;
  value?: string;
  placeHolder?: string;
  /** The problem with `v`, given the answers so far; undefined when it is acceptable. */
  check(v: string, answers: Readonly<Record<string, string>>): string | undefined;
}

/** The answers (trimmed), or undefined when the user dismissed a box. */
export async function runForm(title: string, fields: FormField[], given: Readonly<Record<string, unknown>> = {}): Promise<Record<string, string> | undefined> {
  const answers: Record<string, string> = {};
  for (const [i, f] of fields.entries()) {
    const preset = given[f.key];
    if (typeof preset === 'string' || typeof preset === 'number') {
      const v = String(preset).trim();
      const problem = f.check(v, answers);
      if (problem) throw new InvalidInputError(`${f.prompt}: ${problem}`);
      answers[f.key] = v;
      continue;
    }
    const v = await vscode.window.showInputBox({
      title: `${title} (${i + 1}/${fields.length})`,
      prompt: f.prompt,
      value: f.value,
      placeHolder: f.placeHolder,
      ignoreFocusOut: true,
      validateInput: (text) => f.check(text.trim(), answers),
    });
    if (v === undefined) return undefined;
    answers[f.key] = v.trim();
  }
  return answers;
}

/** The argument as a plain record (tree nodes and argument objects alike). */
export function argRecord(arg: unknown): Record<string, unknown> {
  return record(arg) ?? {};
}
