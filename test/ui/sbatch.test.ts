/**
 * A batch script as a user sees it: a `*.sbatch` file in the workspace (checked against the
 * connection's default system) shows a squiggle on an unknown partition, the problem's message,
 * and the quick fix menu with one entry per partition; choosing the first fixes the line.
 */
import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { target } from '../support/target';
import { openFile, openWorkbench, runCommand, screenshot } from './support/workbench';

describe('batch script checks', () => {
  it('shows an unknown partition with its quick fixes, and the fix corrects the script', async function () {
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace) return this.skip();
    writeFileSync(join(workspace, 'job.sbatch'), '#!/bin/bash\n#SBATCH --job-name=demo\n#SBATCH --partition=nosuch\n#SBATCH --time=00:30:00\n\nsrun hostname\n');
    const page = await openWorkbench();
    await openFile(page, join(workspace, 'job.sbatch'));
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

describe('Where would it start (UI)', () => {
  it('lists Slurm\'s start estimate beside each partition, soonest first, in its own command and in Submit Job\'s partition question', async function () {
    const workspace = process.env.FIRECREST_UI_WORKSPACE;
    if (!workspace || target().gateway?.scheduler === 'local') return this.skip(); // needs Slurm's sbatch --test-only (the built-in scheduler has none)
    this.timeout(180_000);
    const file = join(workspace, 'where.sbatch');
    writeFileSync(file, '#!/bin/bash\n#SBATCH --job-name=where\n#SBATCH --time=00:10:00\n\nsrun hostname\n');
    try {
      const page = await openWorkbench();
      await openFile(page, file);
      await page.locator('.editor-instance .view-lines').filter({ hasText: '--job-name=where' }).first().waitFor({ timeout: 15_000 });
      await runCommand(page, 'FirecREST: Where Would This Script Start Soonest?');
      const rows = page.locator('.quick-input-list .monaco-list-row');
      await rows.filter({ hasText: 'expected to start' }).first().waitFor({ timeout: 90_000 });
      await screenshot(page, 'where-would-it-start');
      assert.match(await rows.first().innerText(), /expected to start now/);
      await page.keyboard.press('Escape');

      // Submit Job with Options…: the partition question's title button fills the estimates in.
      await runCommand(page, 'FirecREST: Submit Job with Options…');
      const widget = page.locator('.quick-input-widget');
      const prompt = widget.locator('.quick-input-title').filter({ hasText: /Submit Job: (working directory|account|partition)/ });
      for (let step = 0; step < 4; step++) {
        await prompt.waitFor({ timeout: 30_000 });
        const title = await prompt.innerText();
        if (/partition/.test(title)) break;
        await page.keyboard.press('Enter'); // the working directory and account as proposed
        await widget.locator('.quick-input-title').filter({ hasNotText: title }).waitFor({ timeout: 30_000 });
      }
      await widget.locator('.quick-input-title').filter({ hasText: 'partition' }).waitFor({ timeout: 30_000 });
      await widget.locator('.quick-input-titlebar .action-label.codicon-watch').first().click({ timeout: 15_000 });
      await rows.filter({ hasText: 'expected to start' }).first().waitFor({ timeout: 90_000 });
      await screenshot(page, 'submit-partition-estimates');
      await page.keyboard.press('Escape');
    } finally {
      rmSync(file, { force: true });
    }
  });
});
