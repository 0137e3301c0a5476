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

describe('Storage (UI)', () => {
  it('asks nothing until clicked, then shows each file system\'s use against its limits', async () => {
    const system = process.env.FIRECREST_SYSTEM ?? 'cluster';
    const page = await openWorkbench();
    await openViewContainer(page, 'FirecREST');
    const body = view(page, 'Systems').body;
    await expand(page, 'Systems', system);
    await expand(page, 'Systems', 'Storage');
    const ask = body.locator('.monaco-list-row', { hasText: 'Ask the cluster for usage and limits' }).first();
    await ask.waitFor({ timeout: 30_000 });
    await ask.click();
    // The test set-up's quota stub: the home has 10 GiB.
    const home = body.locator('.monaco-list-row', { hasText: '/home' }).filter({ hasText: 'of 10.0 GiB' }).first();
    await home.waitFor({ timeout: 90_000 });
    assert.match(await body.locator('.monaco-list-row', { hasText: 'Storage' }).first().innerText(), /as of/);
    await screenshot(page, 'systems-storage', page.locator('.part.sidebar'));
    // The tooltip says where the figures come from.
    await home.hover();
    await page.locator('.monaco-hover').filter({ hasText: '/home, from quota' }).first().waitFor({ timeout: 15_000 });
  });
});
