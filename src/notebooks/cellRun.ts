/**
 * One cell's run on a FirecREST kernel, as a VS Code cell execution: stdout and stderr append to
 * one stream output each as they come, display data becomes an output with its MIME types (rich
 * first), an error shows its traceback; the cell ends with the kernel's execution count. Stopping
 * the cell (its token) interrupts the kernel.
 */
import * as vscode from 'vscode';
import type { CellResult, NotebookSession, OutputMessage } from '../core/notebook/session';

/** The order VS Code should prefer a display's types in (richest first). */
const RICH = ['image/png', 'image/svg+xml', 'text/html', 'text/markdown', 'application/json', 'text/plain'];

function displayOutput(data: Record<string, string | Uint8Array>): vscode.NotebookCellOutput {
  const mimes = Object.keys(data).sort((a, b) => (RICH.indexOf(a) + 1 || 99) - (RICH.indexOf(b) + 1 || 99));
  return new vscode.NotebookCellOutput(mimes.map((mime) => {
    const v = data[mime];
    return typeof v === 'string' ? vscode.NotebookCellOutputItem.text(v, mime) : new vscode.NotebookCellOutputItem(v, mime);
  }));
}

export async function runCell(controller: vscode.NotebookController, session: NotebookSession, cell: vscode.NotebookCell): Promise<CellResult | undefined> {
  const execution = controller.createNotebookCellExecution(cell);
  execution.start(Date.now());
  await execution.clearOutput();
  const stop = execution.token.onCancellationRequested(() => void session.interrupt().catch(() => undefined));
  // The stream output of each name that text is appended to (a display in between starts a new one).
  let stream: { name: string; output: vscode.NotebookCellOutput } | undefined;
  // Appends run in order: each waits for the one before.
  let queue: Thenable<void> = Promise.resolve();
  const then = (f: () => Thenable<void>) => { queue = queue.then(f, f); };
  const onOutput = (m: OutputMessage) => {
    if (m.type === 'stream') {
      const item = m.name === 'stderr' ? vscode.NotebookCellOutputItem.stderr(m.text) : vscode.NotebookCellOutputItem.stdout(m.text);
      if (stream?.name === m.name) {
        const output = stream.output;
        then(() => execution.appendOutputItems(item, output));
      } else {
        const output = new vscode.NotebookCellOutput([item]);
        stream = { name: m.name, output };
        then(() => execution.appendOutput(output));
      }
      return;
    }
    stream = undefined;
    const output = m.type === 'display'
      ? displayOutput(m.data)
      : new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name: m.ename, message: m.evalue, stack: m.traceback.join('') })]);
    then(() => execution.appendOutput(output));
  };
  try {
    const result = await session.execute(`c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, cell.document.getText(), onOutput);
    await queue;
    execution.executionOrder = result.count || undefined;
    execution.end(result.status === 'ok', Date.now());
    return result;
  } catch (e) {
    await queue;
    await execution.appendOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error(e instanceof Error ? e : new Error(String(e)))]));
    execution.end(false, Date.now());
    return undefined;
  } finally {
    stop.dispose();
  }
}
