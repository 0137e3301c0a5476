/**
 * Map Folder to Cluster as a user sees it (#41 item 13): the same folder picker as Open Remote
 * Folder, starting at <home>/<folder name>, with the home's folders listed; Enter takes the typed
 * folder (created when missing); then a choice of where the mapping is kept, and by default
 * nothing is written into the user's repository.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { remoteHome, sampleFolder, testClient } from './support/client';
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
describe('Sync conflicts (UI)', () => {
  it('asks which side stays beside the diff, never over it: a notification and the diff\'s title bar (#41 item 14)', async function () {
    this.timeout(180_000);
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace) return this.skip();
    const client = await testClient('fc-ui-conflict');
    // Named to come first: conflicts are reviewed in path order.
    const stamp = Date.now().toString(36);
    const name = `aa-conflict-${stamp}.txt`;
    // A second conflict, reviewed next and answered in its notification.
    const second = `ab-conflict-${stamp}.txt`;
    const local = join(workspace, name);
    const local2 = join(workspace, second);
    const remoteDir = `${await remoteHome(client, SYSTEM)}/${basename(workspace)}`;
    const remote = `${remoteDir}/${name}`;
    const remoteText = async (path = remote) => new TextDecoder().decode(await client.downloadSmall(SYSTEM, path).catch(() => new Uint8Array()));
    const page = await openWorkbench();
    const sync = async (button: string): Promise<void> => {
      await runCommand(page, 'FirecREST: Sync to Cluster');
      const b = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: button }).first();
      await b.waitFor({ timeout: 60_000 });
      await b.click();
    };
    try {
      writeFileSync(local, 'base\n');
      writeFileSync(local2, 'base\n');
      await sync('Sync');
      await waitUntil('the files on the cluster', async () => (await remoteText()) === 'base\n' && (await remoteText(`${remoteDir}/${second}`)) === 'base\n');
      // Changed on both sides.
      for (const n of [name, second]) await client.uploadSmall(SYSTEM, remoteDir, n, new TextEncoder().encode('the cluster\'s\n'));
      writeFileSync(local, 'local\n');
      writeFileSync(local2, 'local\n');
      await sync('Review Conflicts…');
      // Other tests' files in the workspace may be in conflict too: those are left for later.
      const notice = page.locator('.notification-toast').filter({ hasText: `${name} changed on both sides` }).first();
      for (let i = 0; i < 20 && !(await notice.isVisible()); i++) {
        const other = page.locator('.notification-toast').filter({ hasText: 'changed on both sides' }).first();
        await Promise.race([notice.waitFor({ timeout: 30_000 }), other.waitFor({ timeout: 30_000 })]);
        if (await notice.isVisible()) break;
        await other.locator('.monaco-button').filter({ hasText: 'Decide Later' }).click();
        await other.waitFor({ state: 'detached', timeout: 15_000 });
      }
      await notice.waitFor({ timeout: 30_000 });
      await page.locator('.tabs-container .tab').filter({ hasText: `${name} (cluster ↔ local)` }).first().waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'nothing covers the diff');
      await screenshot(page, 'sync-conflict-review');
      // The diff's title bar answers too.
      await page.locator('.editor-actions .action-label[aria-label^="Keep Local"]').first().click({ timeout: 15_000 });
      // Answered: its diff closes, and the next conflict's opens, with its own question.
      await page.locator('.tabs-container .tab').filter({ hasText: `${name} (cluster ↔ local)` }).first().waitFor({ state: 'detached', timeout: 15_000 });
      const next = page.locator('.notification-toast').filter({ hasText: `${second} changed on both sides` }).first();
      await next.waitFor({ timeout: 30_000 });
      await page.locator('.tabs-container .tab').filter({ hasText: `${second} (cluster ↔ local)` }).first().waitFor({ timeout: 30_000 });
      await next.locator('.monaco-button').filter({ hasText: "Keep the Cluster's" }).click();
      // Other files' conflicts, if any (an earlier run's), come after: each is left for later
      // whenever its question shows, and then the sync runs with the answers given.
      const otherQuestion = page.locator('.notification-toast').filter({ hasText: 'changed on both sides' }).filter({ hasNotText: name }).filter({ hasNotText: second });
      await waitUntil('the local file sent and the cluster\'s brought here', async () => {
        if ((await remoteText()) === 'local\n' && readFileSync(local2, 'utf8') === 'the cluster\'s\n') return true;
        if (await otherQuestion.count()) await otherQuestion.first().locator('.monaco-button').filter({ hasText: 'Decide Later' }).click({ timeout: 5_000 }).catch(() => undefined);
        return false;
      }, 90_000);
    } finally {
      rmSync(local, { force: true });
      rmSync(local2, { force: true });
      await client.remove(SYSTEM, remote).catch(() => undefined);
      await client.remove(SYSTEM, `${remoteDir}/${second}`).catch(() => undefined);
      await client.dispose();
    }
  });
});

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

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
