/**
 * Search on Cluster as a user drives it: the palette, the folder, the search box, then the Cluster
 * Search view with the files, their counts and the highlighted lines; a click opens the file at the
 * match. Screenshot in test-results/search-results.png.
 */
import * as assert from 'node:assert/strict';
import { target } from '../support/target';
import { sampleFolder } from './support/client';
import { openViewContainer, openWorkbench, runCommand, screenshot, view } from './support/workbench';

describe('Search on Cluster (UI)', () => {
  // A folder of the test's own with the file to find (support/client.ts: sampleFolder).
  const system = target().system;
  let folder: Awaited<ReturnType<typeof sampleFolder>> | undefined;
  before(async () => {
    folder = await sampleFolder(system, 'ui-search');
  });
  after(async () => {
    await folder?.remove();
    const page = await openWorkbench();
    await runCommand(page, 'FirecREST: Clear Search Results').catch(() => undefined);
    await runCommand(page, 'View: Close All Editors').catch(() => undefined);
  });

  it('searches a folder and shows the results, highlighted; a click opens the line', async function () {
    this.timeout(180_000);

    const page = await openWorkbench();
    await openViewContainer(page, 'FirecREST');
    for (const name of ['Systems', 'Jobs']) {
      const header = view(page, name).header;
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    }
    await runCommand(page, 'FirecREST: Search on Cluster…');
    const input = page.locator('.quick-input-widget input');
    // No remote folder in this window: the command asks which one.
    await page.locator('.quick-input-widget').filter({ hasText: 'Search on Cluster: folder' }).first().waitFor({ timeout: 15_000 });
    await input.fill(`firecrest://${system}${folder!.dir}/analysis`);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').filter({ hasText: 'Literal text' }).first().waitFor({ timeout: 15_000 });
    await input.fill('rows');
    await screenshot(page, 'search-box', page.locator('.quick-input-widget'));
    await page.keyboard.press('Enter');

    const results = view(page, 'Cluster Search');
    const line = results.body.locator('.monaco-list-row').filter({ hasText: 'for r in rows' }).first();
    await line.waitFor({ timeout: 90_000 });
    await results.body.locator('.message').filter({ hasText: /^\s*2 results in 1 file\b/ }).first().waitFor({ timeout: 30_000 });
    const fileRow = results.body.locator('.monaco-list-row').filter({ hasText: 'sum.py' }).first();
    assert.match(await fileRow.innerText(), /2/);
    // The match is highlighted in the line's label.
    assert.ok(await line.locator('.highlight').count() > 0, 'the match is highlighted');
    await screenshot(page, 'search-results', page.locator('.part.sidebar'));

    await line.click();
    await page.locator('.tabs-container .tab').filter({ hasText: 'sum.py' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-instance .view-lines').filter({ hasText: 'for r in rows' }).first().waitFor({ timeout: 30_000 });
  });
});
