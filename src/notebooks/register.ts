/** Notebook kernels on compute nodes (kernels.ts): the controllers and the toolbar's commands. */
import * as vscode from 'vscode';
import { registerCommand } from '../common/commandWrapper';
import type { ExtensionServices } from '../common/services';
import { NotebookKernels } from './kernels';

export function registerNotebooks(services: ExtensionServices): vscode.Disposable {
  const log = services.log.withTag('notebook');
  const kernels = new NotebookKernels(services);
  // Tests: the kernels (the resources form's answers, a notebook's kernel).
  services.testSeam.expose('notebookKernels', () => kernels);
  return vscode.Disposable.from(
    kernels,
    registerCommand('firecrest.notebook.restartKernel', log, (arg?: unknown) => kernels.restart(arg)),
    registerCommand('firecrest.notebook.shutdownKernel', log, (arg?: unknown) => kernels.shutdown(arg)),
  );
}
