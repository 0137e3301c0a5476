/**
 * A notebook on the cluster as a user sees it: an .ipynb of the workspace, the FirecREST kernel of
 * a partition chosen in VS Code's kernel picker, the kernel's questions answered as proposed, Run
 * All, and the outputs (text, a value, an image) with the kernel's state in the status bar.
 * Screenshot in test-results/ (the README's).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { target } from '../support/target';
import { openFile, openWorkbench, runCommand, screenshot } from './support/workbench';

/** A small gradient as a PNG, drawn by the cell itself (no matplotlib needed). */
const IMAGE_CELL = [
  'import struct, zlib',
  'def png(w, h, px):',
  '    rows = b"".join(b"\\x00" + bytes(px(x, y) for x in range(w) for _ in (0,) ) for y in range(h))',
  '    def chunk(k, d): return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))',
  '    return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")',
  'class Gradient:',
  '    def _repr_png_(self): return png(240, 60, lambda x, y: (x + y) % 256)',
  'Gradient()',
].join('\n');

function notebook(cells: string[]): string {
  return JSON.stringify({
    nbformat: 4, nbformat_minor: 5, metadata: { language_info: { name: 'python' } },
    cells: cells.map((source, i) => ({ cell_type: 'code', id: `c${i}`, metadata: {}, execution_count: null, outputs: [], source })),
  }, null, 1);
}

describe('Notebook on the cluster (UI)', () => {
  it('runs a notebook on a FirecREST kernel chosen in the kernel picker, with its outputs', async function () {
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace) return this.skip();
    this.timeout(240_000);
    const system = target().system;
    const file = join(workspace, 'on-the-node.ipynb');
    writeFileSync(file, notebook(['import socket, sys\nprint("Python", sys.version.split()[0], "on", socket.gethostname())', 'sum(i * i for i in range(1000))', IMAGE_CELL]));
    const page = await openWorkbench();
    try {
      await openFile(page, file);
      await page.locator('.notebook-editor').first().waitFor({ timeout: 30_000 });
      await runCommand(page, 'Notebook: Select Notebook Kernel');
      const rows = page.locator('.quick-input-list .monaco-list-row');
      const ours = rows.filter({ hasText: `FirecREST: ${system} · debug` }).first();
      // The picker lists the kernels, or first its sources ("Select Another Kernel…").
      for (let i = 0; i < 3 && !(await ours.isVisible()); i++) {
        await rows.first().waitFor({ timeout: 30_000 });
        if (await ours.isVisible()) break;
        const another = rows.filter({ hasText: /Select Another Kernel|FirecREST/ }).first();
        if (await another.isVisible()) await another.click();
        await page.waitForTimeout(300);
      }
      await ours.click({ timeout: 30_000 });
      await runCommand(page, 'Notebook: Run All');
      // The kernel's four questions, answered as proposed (time, CPUs, memory, GPUs).
      const widget = page.locator('.quick-input-widget');
      for (let step = 1; step <= 4; step++) {
        await widget.locator('.quick-input-title').filter({ hasText: `(${step}/4)` }).waitFor({ timeout: 60_000 });
        await page.keyboard.press('Enter');
      }
      await page.locator('.cell-status-item .codicon-notebook-state-success').nth(2).waitFor({ timeout: 120_000 });
      await page.locator('.statusbar-item', { hasText: 'Kernel on' }).first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
      await screenshot(page, 'notebook-on-the-cluster');
      await runCommand(page, 'FirecREST: Shut Down Notebook Kernel (Cancels Its Job)');
      await page.locator('.statusbar-item', { hasText: 'Kernel on' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    } finally {
      // The run's outputs made the notebook dirty: reverted, so closing asks nothing (a dialog left
      // open would block the suites after this one).
      await runCommand(page, 'View: Revert and Close Editor').catch(() => undefined);
      const dialog = page.locator('.monaco-dialog-box');
      for (const answer of ['Cancel Job', "Don't Save"]) {
        await dialog.locator('.monaco-button').filter({ hasText: answer }).first().click({ timeout: 2_000 }).catch(() => undefined);
      }
      await dialog.waitFor({ state: 'detached', timeout: 10_000 });
      rmSync(file, { force: true });
    }
  });
});
