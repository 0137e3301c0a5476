/**
 * A batch script as a user sees it: a `*.sbatch` file in the workspace (checked against the
 * connection's default system) shows a squiggle on an unknown partition, the problem's message,
 * and the quick fix menu with one entry per partition; choosing the first fixes the line.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench, screenshot } from './support/workbench';

describe('batch script checks', () => {
  it('shows an unknown partition with its quick fixes, and the fix corrects the script', async function () {
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace) return this.skip();
    writeFileSync(join(workspace, 'job.sbatch'), '#!/bin/bash\n#SBATCH --job-name=demo\n#SBATCH --partition=nosuch\n#SBATCH --time=00:30:00\n\nsrun hostname\n');
    const page = await openWorkbench();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill('job.sbatch');
    await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'job.sbatch' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-lines').filter({ hasText: '--partition=nosuch' }).waitFor({ timeout: 15_000 });
    // The live check arrives once the cache has the partitions (a background refresh).
    await editor.locator('.squiggly-error').first().waitFor({ timeout: 30_000 });
    // The Submit CodeLens names the system.
    await editor.locator('.codelens-decoration').filter({ hasText: 'Submit to' }).first().waitFor({ timeout: 15_000 });

    await editor.locator('.view-lines').click();
    await page.keyboard.press('F8'); // next problem: the inline widget with the message
    const marker = page.locator('.marker-widget');
    await marker.getByText("Partition 'nosuch' does not exist").first().waitFor({ timeout: 10_000 });
    await screenshot(page, 'sbatch-diagnostic');

    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+.');
    const menu = page.locator('.action-widget');
    // The menu waits for every code action provider (VS Code's chat adds its own to each diagnostic):
    // with the other suites' VS Codes busy beside it that took over 10 s in CI. A 30 s guard.
    await menu.getByText("Use partition 'debug' (default)").first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'sbatch-quick-fix');
    const items = await menu.locator('.action-label, .title').allInnerTexts();
    assert.ok(items.some((t) => t.includes("Use partition 'long'")), `all partitions offered: ${items.join(' | ')}`);

    await page.keyboard.press('Enter');
    await editor.locator('.view-lines').filter({ hasText: '--partition=debug' }).waitFor({ timeout: 10_000 });
    await editor.locator('.squiggly-error').waitFor({ state: 'detached', timeout: 15_000 });
    await screenshot(page, 'sbatch-fixed');
    await page.keyboard.press('Control+S');
  });
});
