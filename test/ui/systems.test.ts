/**
 * The Systems tree as a user sees it: the system with its health, expanded to partitions (default
 * marked) and reservations (the `maint` one with its warning icon). Screenshot in test-results/.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openViewContainer, openWorkbench, screenshot, view } from './support/workbench';

async function expand(page: Page, viewName: string, label: string): Promise<void> {
  const row = view(page, viewName).body.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) }).first();
  await row.waitFor({ timeout: 30_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  await page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true', await row.elementHandle(), { timeout: 30_000 });
}

describe('Systems view (UI)', () => {
  it('shows the system expanded: partitions with the default, reservations with the maint warning', async () => {
    const system = process.env.FIRECREST_SYSTEM ?? 'cluster';
    const page = await openWorkbench();
    await openViewContainer(page, 'FirecREST');
    const systems = view(page, 'Systems');
    await systems.header.waitFor();
    await expand(page, 'Systems', system);
    await expand(page, 'Systems', 'Partitions');
    await expand(page, 'Systems', 'Reservations');
    const body = systems.body;
    await body.locator('.monaco-list-row', { hasText: 'maint' }).first().waitFor({ timeout: 30_000 });
    const debugRow = body.locator('.monaco-list-row', { hasText: 'debug' }).first();
    assert.match(await debugRow.innerText(), /default/);
    const maintIcon = body.locator('.monaco-list-row', { hasText: 'maint' }).first().locator('.codicon-warning');
    assert.equal(await maintIcon.count(), 1, 'the maintenance reservation carries the warning icon');
    await screenshot(page, 'systems-tree-expanded', page.locator('.part.sidebar'));
  });
});
