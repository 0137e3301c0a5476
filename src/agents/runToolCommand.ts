/**
 * FirecREST: Run Agent Tool…: runs one of the agent tools by hand, exactly as a model would call
 * it (through `vscode.lm.invokeTool`, so a write asks first), and shows the answer the model would
 * get. For seeing what agents see, and for trying a call before letting an agent make it.
 * `{ tool, input }` skips the prompts (the confirmation stays).
 */
import * as vscode from 'vscode';
import { fields, record, text } from '../common/commandArgs';

async function pickTool(names: readonly string[]): Promise<string | undefined> {
  const items = vscode.lm.tools.filter((t) => names.includes(t.name)).map((t) => ({ label: t.name, detail: t.description.split('. ')[0], name: t.name }));
  return (await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Run Agent Tool'), placeHolder: vscode.l10n.t('Which tool?'), matchOnDetail: true }))?.name;
}

async function askInput(name: string): Promise<Record<string, unknown> | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Run Agent Tool: {0}', name),
    prompt: vscode.l10n.t('The input as JSON, as a model would send it (see the tool\'s schema)'),
    value: '{}',
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        return record(JSON.parse(v)) ? undefined : vscode.l10n.t('A JSON object, e.g. {"system": "daint"}');
      } catch (e) {
        return vscode.l10n.t('Not JSON: {0}', e instanceof Error ? e.message : String(e));
      }
    },
  });
  return value === undefined ? undefined : record(JSON.parse(value));
}

export async function runAgentTool(names: readonly string[], arg: unknown): Promise<string | undefined> {
  const given = fields(arg, { tool: text, input: record });
  const name = given.tool ?? (await pickTool(names));
  if (!name) return undefined;
  if (!names.includes(name)) throw new Error(vscode.l10n.t('{0} is not a FirecREST tool.', name));
  const input = given.input ?? (await askInput(name));
  if (!input) return undefined;
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Running {0}…', name), cancellable: true }, (_p, token) =>
    vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token),
  );
  const answer = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: `# ${name}\n\n\`\`\`json\n${JSON.stringify(input, null, 2)}\n\`\`\`\n\n${answer}\n` });
  await vscode.window.showTextDocument(doc, { preview: true });
  return answer;
}
