/**
 * The search box: one input for the text, with buttons that toggle regex, match case and whole
 * word (their state is spelled out under the input, as buttons cannot show it), and one that asks
 * for the globs of files to include and exclude. Enter searches; Escape leaves.
 */
import * as vscode from 'vscode';
import { fields, flag, record, text, type Field } from '../common/commandArgs';

export interface SearchBoxState {
  pattern: string;
  regex: boolean;
  matchCase: boolean;
  wholeWord: boolean;
  include: string;
  exclude: string;
}

/** A search given by a script or test (`firecrest.searchOnCluster` with `{folder, query}`). */
export const searchQuery: Field<Partial<SearchBoxState>> = (v) =>
  record(v) ? fields(v, { pattern: text, regex: flag, matchCase: flag, wholeWord: flag, include: text, exclude: text }) : undefined;

export const EMPTY_SEARCH: SearchBoxState = { pattern: '', regex: false, matchCase: false, wholeWord: false, include: '', exclude: '' };

/** Comma-separated globs, as typed, as a list. */
export function globList(text: string): string[] {
  return text.split(',').map((g) => g.trim()).filter((g) => g !== '');
}

function describe(s: SearchBoxState): string {
  const parts = [
    s.regex ? vscode.l10n.t('Regular expression') : vscode.l10n.t('Literal text'),
    s.matchCase ? vscode.l10n.t('match case') : vscode.l10n.t('any case'),
    s.wholeWord ? vscode.l10n.t('whole words') : vscode.l10n.t('partial words'),
  ];
  if (s.include) parts.push(vscode.l10n.t('include: {0}', s.include));
  if (s.exclude) parts.push(vscode.l10n.t('exclude: {0}', s.exclude));
  return parts.join(' · ');
}

/** Undefined when the user left without searching. */
export async function askSearch(folderLabel: string, initial: SearchBoxState): Promise<SearchBoxState | undefined> {
  let state = { ...initial };
  for (;;) {
    const step = await queryStep(folderLabel, state);
    if (!step) return undefined;
    state = step.state;
    if (step.done) return state;
    // The filters button: two more inputs, then back to the text.
    const include = await vscode.window.showInputBox({
      title: vscode.l10n.t('Search on Cluster: files to include'),
      prompt: vscode.l10n.t('Comma-separated globs, e.g. *.py, src/**/*.c (empty: every file)'),
      value: state.include,
      ignoreFocusOut: true,
    });
    if (include === undefined) continue;
    const exclude = await vscode.window.showInputBox({
      title: vscode.l10n.t('Search on Cluster: files and folders to exclude'),
      prompt: vscode.l10n.t('Comma-separated globs, e.g. build, *.log (.git is always excluded)'),
      value: state.exclude,
      ignoreFocusOut: true,
    });
    state = { ...state, include: include.trim(), exclude: exclude === undefined ? state.exclude : exclude.trim() };
  }
}

function queryStep(folderLabel: string, initial: SearchBoxState): Promise<{ state: SearchBoxState; done: boolean } | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    let state = { ...initial };
    const regex: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('regex'), tooltip: vscode.l10n.t('Use Regular Expression (toggle)') };
    const caseBtn: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('case-sensitive'), tooltip: vscode.l10n.t('Match Case (toggle)') };
    const word: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('whole-word'), tooltip: vscode.l10n.t('Match Whole Word (toggle)') };
    const filters: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('filter'), tooltip: vscode.l10n.t('Files to Include and Exclude…') };
    box.title = vscode.l10n.t('Search on Cluster: {0}', folderLabel);
    box.placeholder = vscode.l10n.t('Text to find in the files under this folder');
    box.buttons = [regex, caseBtn, word, filters];
    box.value = state.pattern;
    box.ignoreFocusOut = true;
    const show = () => {
      box.prompt = describe(state);
    };
    show();
    let settled = false;
    const finish = (r: { state: SearchBoxState; done: boolean } | undefined) => {
      if (settled) return;
      settled = true;
      resolve(r);
      box.dispose();
    };
    box.onDidChangeValue((v) => {
      state.pattern = v;
      box.validationMessage = /[\r\n]/.test(v) ? vscode.l10n.t('Search on Cluster matches within one line') : undefined;
    });
    box.onDidTriggerButton((b) => {
      if (b === regex) state = { ...state, regex: !state.regex };
      else if (b === caseBtn) state = { ...state, matchCase: !state.matchCase };
      else if (b === word) state = { ...state, wholeWord: !state.wholeWord };
      else if (b === filters) return finish({ state, done: false });
      show();
    });
    box.onDidAccept(() => {
      if (box.value.trim() === '' || box.validationMessage) return;
      finish({ state: { ...state, pattern: box.value }, done: true });
    });
    box.onDidHide(() => finish(undefined));
    box.show();
  });
}
