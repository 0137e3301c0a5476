/**
 * An agent tool's write as the user meets it: *FirecREST: Run Agent Tool…* calls the tool as a
 * model would (vscode.lm.invokeTool), and VS Code asks in a modal dialog that says what will
 * happen. Cancel writes nothing; Yes writes, and the answer the model gets opens beside.
 * Screenshot in test-results/agents-confirmation.png.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { NotFoundError, type FirecrestClient } from '../../src/core/index';
import { target } from '../support/target';
import { sampleFolder, testClient } from './support/client';
import { openWorkbench, runCommand, screenshot } from './support/workbench';

describe('Agent tools (UI)', () => {
  const system = target().system;
  let folder: Awaited<ReturnType<typeof sampleFolder>> | undefined;
  let client: FirecrestClient | undefined;
  before(async () => {
    folder = await sampleFolder(system, 'ui-agents');
    client = await testClient('ui-agents-check');
  });
  after(async () => {
    await folder?.remove();
    await client?.dispose();
    const page = await openWorkbench();
    await runCommand(page, 'View: Revert and Close Editor').catch(() => undefined);
  });

  /** Runs firecrest_write_file through the palette and answers its confirmation with `button`; the dialog's text. */
  async function writeThroughTool(page: Page, path: string, button: 'Cancel' | 'Yes'): Promise<string> {
    await runCommand(page, 'FirecREST: Run Agent Tool…');
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input');
    await widget.filter({ hasText: 'Run Agent Tool' }).first().waitFor({ timeout: 15_000 });
    await input.fill('firecrest_write_file');
    await widget.locator('.monaco-list-row', { hasText: 'firecrest_write_file' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await widget.filter({ hasText: 'Run Agent Tool: firecrest_write_file' }).first().waitFor({ timeout: 15_000 });
    await input.fill(JSON.stringify({ system, path, content: 'agreed by a person\n' }));
    await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    const text = await dialog.innerText();
    if (button === 'Cancel') await screenshot(page, 'agents-confirmation', dialog);
    await dialog.locator('.monaco-button', { hasText: new RegExp(`^${button}$`) }).first().click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    return text;
  }

  it('a write asks first, saying what it will do: Cancel writes nothing, Yes writes', async function () {
    this.timeout(180_000);
    const page = await openWorkbench();
    const path = `${folder!.dir}/agent.txt`;

    const asked = await writeThroughTool(page, path, 'Cancel');
    assert.match(asked, new RegExp(`Write a file on ${system}`));
    assert.ok(asked.includes(path), asked);
    assert.match(asked, /agreed by a person/);
    // A refusal is the user's answer: VS Code cancels the call before the tool runs; nothing on the cluster.
    await assert.rejects(client!.stat(system, path), NotFoundError);

    await writeThroughTool(page, path, 'Yes');
    await page.locator('.editor-instance .view-lines').filter({ hasText: 'Wrote 19 bytes' }).first().waitFor({ timeout: 60_000 });
    assert.equal(Buffer.from(await client!.downloadSmall(system, path)).toString(), 'agreed by a person\n');
  });
});
