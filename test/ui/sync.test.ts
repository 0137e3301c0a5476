/**
 * Map Folder to Cluster as a user sees it (#41 item 13): the same folder picker as Open Remote
 * Folder, starting at <home>/<folder name>, with the home's folders listed; Enter takes the typed
 * folder (created when missing); then a choice of where the mapping is kept, and by default
 * nothing is written into the user's repository.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sampleFolder } from './support/client';
import { openWorkbench, runCommand, screenshot } from './support/workbench';

const SYSTEM = process.env.FIRECREST_SYSTEM ?? 'localcluster';

describe('Map Folder to Cluster (UI)', () => {
  it('picks the remote folder like Open Remote Folder, and keeps the mapping out of the repository by default', async function () {
    this.timeout(120_000);
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace) return this.skip();
    const settings = join(workspace, '.vscode', 'settings.json');
    const before = existsSync(settings) ? readFileSync(settings, 'utf8') : undefined;
    // A folder in the home to see listed.
    const sample = await sampleFolder(SYSTEM, 'fc-ui-map');
    try {
      await mapWorkspace(sample.dir, before);
    } finally {
      await sample.remove();
    }
  });
});

/** Maps the UI workspace's folder with the picker; `sampleDir` is a folder of the home to see listed. */
async function mapWorkspace(sampleDir: string, before: string | undefined): Promise<void> {
  const workspace = process.env.FIRECREST_UI_WORKSPACE ?? '';
  const settings = join(workspace, '.vscode', 'settings.json');
  const page = await openWorkbench();
  await runCommand(page, 'FirecREST: Map Folder to Cluster…');
  const widget = page.locator('.quick-input-widget');
  const name = basename(workspace);
  await widget.locator('.quick-input-title').filter({ hasText: `Map ${name} to a folder on ${SYSTEM}` }).waitFor({ timeout: 30_000 });
  const input = widget.locator('input');
  assert.match(await input.inputValue(), new RegExp(`^/home/[^/]+/${name}$`), 'starts at <home>/<folder name>');
  // The home's folders are listed, to choose from instead of typing.
  await widget.locator('.monaco-list-row').filter({ hasText: `${basename(sampleDir)}/` }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, 'sync-map-folder-picker');
  await page.keyboard.press('Enter');
  // A folder that does not exist yet is created on request (an earlier run may have made it).
  const create = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: 'Create It' }).first();
  const where = widget.locator('.quick-input-title').filter({ hasText: 'Where should the mapping be kept?' });
  await Promise.race([create.waitFor({ timeout: 30_000 }), where.waitFor({ timeout: 30_000 })]);
  if (await create.isVisible()) await create.click();
  await where.waitFor({ timeout: 30_000 });
  await screenshot(page, 'sync-map-folder-where');
  const first = widget.locator('.monaco-list-row').first();
  assert.match(await first.innerText(), /In this workspace only/);
  await page.keyboard.press('Enter');
  // Mapped: the status bar's sync item shows, and the repository's settings are as they were.
  await page.locator('.statusbar-item .codicon-cloud-upload').first().waitFor({ timeout: 30_000 });
  assert.equal(existsSync(settings) ? readFileSync(settings, 'utf8') : undefined, before, '.vscode/settings.json untouched');
}
