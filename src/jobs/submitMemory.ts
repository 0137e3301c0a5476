/**
 * Submit Job's answers, remembered per script (workspace state): the next submission of the same
 * script asks nothing it was told before; *Submit Job with Options…* asks again.
 */
import type * as vscode from 'vscode';

/** What was answered for a script; an absent option means "the scheduler decides". */
export interface SubmitAnswers {
  profile: string;
  system: string;
  workingDirectory?: string;
  account?: string;
  partition?: string;
  reservation?: string;
}

const KEY = 'firecrest.submit.answers';
/** Scripts remembered at most (the oldest answers are dropped first). */
const MAX_SCRIPTS = 200;

export class SubmitMemory {
  constructor(private readonly state: vscode.Memento) {}

  private all(): Record<string, SubmitAnswers & { at: number }> {
    return this.state.get<Record<string, SubmitAnswers & { at: number }>>(KEY) ?? {};
  }

  /** The answers last given for `script` on that profile and system (any, when not named). */
  get(script: vscode.Uri, where?: { profile?: string; system?: string }): SubmitAnswers | undefined {
    const hit = this.all()[script.toString()];
    if (!hit || (where?.profile !== undefined && hit.profile !== where.profile) || (where?.system !== undefined && hit.system !== where.system)) return undefined;
    const { at: _at, ...answers } = hit;
    return answers;
  }

  async set(script: vscode.Uri, answers: SubmitAnswers): Promise<void> {
    const all = { ...this.all(), [script.toString()]: { ...answers, at: Date.now() } };
    const keys = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
    for (const k of keys.slice(MAX_SCRIPTS)) delete all[k];
    await this.state.update(KEY, all);
  }
}
