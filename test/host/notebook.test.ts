/**
 * A notebook on a compute node in a real VS Code: the FirecREST kernel of a partition is chosen,
 * three cells run in one Python process of a Slurm job (printed text, a value, an image), and Shut
 * Down ends the job.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { target } from '../support/target';
import { extensionApi, waitFor } from './support/extension';
import { testPartition } from './support/apiVersion';

const PROFILE = 'notebook-test';
const EXTENSION = 'firecrest-community.firecrest-vscode';

interface Kernels {
  formAnswers: { given?: { timeMinutes: number } };
  update(): Promise<void>;
  kernelOf(uri: vscode.Uri): { jobId: string; state: string } | undefined;
}

const PNG_CELL = `import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
class Dot:
    def _repr_png_(self):
        return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(b'\\x00\\xff\\x00\\x00')) + chunk(b'IEND', b'')
Dot()`;

describe('Notebook kernel on a compute node', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;

  before(async () => {
    const api = await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('runs three cells in a job (text, a value, an image) and shuts the kernel down', async () => {
    const kernels = await vscode.commands.executeCommand<Kernels>('firecrest.test.notebookKernels');
    kernels.formAnswers = { given: { timeMinutes: 10 } };
    await kernels.update();
    const partition = await testPartition(client, t.system);
    const controller = `firecrest-${PROFILE}-${t.system}-${partition}`.replace(/[^\w.-]/g, '_');
    const data = new vscode.NotebookData([
      new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'x = 6 * 7\nprint("hello from the node")', 'python'),
      new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'x', 'python'),
      new vscode.NotebookCellData(vscode.NotebookCellKind.Code, PNG_CELL, 'python'),
    ]);
    const doc = await vscode.workspace.openNotebookDocument('jupyter-notebook', data);
    await vscode.window.showNotebookDocument(doc);
    await vscode.commands.executeCommand('notebook.selectKernel', { id: controller, extension: EXTENSION });
    await vscode.commands.executeCommand('notebook.execute', doc.uri);
    const cells = doc.getCells();
    await waitFor('the three cells run', () => cells.every((c) => c.executionSummary?.success !== undefined) || undefined, 180_000);
    assert.deepEqual(cells.map((c) => c.executionSummary?.success), [true, true, true]);
    assert.deepEqual(cells.map((c) => c.executionSummary?.executionOrder), [1, 2, 3]);
    const text = (c: vscode.NotebookCell, mime: string) => c.outputs.flatMap((o) => o.items).filter((i) => i.mime === mime).map((i) => new TextDecoder().decode(i.data)).join('');
    assert.equal(text(cells[0], 'application/vnd.code.notebook.stdout'), 'hello from the node\n');
    assert.equal(text(cells[1], 'text/plain'), '42');
    const png = cells[2].outputs.flatMap((o) => o.items).find((i) => i.mime === 'image/png');
    assert.ok(png && Buffer.from(png.data).subarray(1, 4).toString() === 'PNG', 'a PNG output');

    const kernel = kernels.kernelOf(doc.uri);
    assert.ok(kernel, 'the notebook has a kernel');
    const job = await client.job(t.system, kernel.jobId);
    assert.equal(job.name, 'f7t-notebook');
    assert.equal(job.partition, partition);
    const ended = await vscode.commands.executeCommand<string>('firecrest.notebook.shutdownKernel', doc.uri);
    assert.equal(ended, kernel.jobId);
    assert.equal((await client.job(t.system, kernel.jobId)).isFinal, true, 'Shut Down ends the job');
    assert.equal(kernels.kernelOf(doc.uri), undefined);
  });
});
