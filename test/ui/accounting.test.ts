/**
 * The Job Accounting panel as a user sees it, in the dark and the light theme: a few jobs are
 * submitted first (some succeed, some fail, one is cancelled), then the panel opens from the
 * palette, queries, and shows the summary, both charts and the table. Screenshots in test-results/.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import { target } from '../support/target';
import { until } from '../support/until';
import { jobsFolder } from '../support/jobsFolder';
import { remoteHome, testClient } from './support/client';
import { openWorkbench, runCommand, screenshot } from './support/workbench';

/** The document inside the (one) webview: VS Code nests the page in a second iframe. */
function webview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Sets `workbench.colorTheme` through the theme picker (it lists `Default Dark Modern` as `Dark Modern`). */
async function setTheme(page: Page, theme: 'Default Dark Modern' | 'Default Light Modern'): Promise<void> {
  // Not runCommand: its first match can be "Browse Color Themes in Marketplace" (offline here).
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row').filter({ has: page.getByText('Preferences: Color Theme', { exact: true }) }).first().click();
  const label = theme.replace(/^Default /, '');
  const input = page.locator('.quick-input-widget input');
  await input.fill(label);
  await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: label }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  await page.locator(theme.includes('Light') ? '.monaco-workbench.vs' : '.monaco-workbench.vs-dark').waitFor();
}

/** Some history for the charts: jobs on two partitions, successes, failures and a cancellation. */
async function submitHistory(): Promise<void> {
  const system = target().system;
  const client = await testClient('ui-accounting');
  try {
    // The jobs run in a folder of their own (their output files go with it).
    const jobs = await jobsFolder(client, system, await remoteHome(client, system), 'ui-acct-jobs');
    const jobsDir = jobs.path;
    const plan: [string, string, number, number][] = [
      ['prepare-input', 'debug', 1, 0], ['simulate-a', 'long', 3, 0], ['simulate-b', 'long', 2, 0], ['analyse', 'debug', 1, 0],
      ['bad-config', 'debug', 0, 3], ['plot', 'debug', 1, 0], ['oom-like', 'long', 1, 137],
    ];
    const ids = await Promise.all(plan.map(([name, partition, sleep, code]) => client.submitJob(system, {
      name, workingDirectory: jobsDir, script: `#!/bin/bash\n#SBATCH --partition=${partition}\n#SBATCH --time=00:05:00\nsleep ${sleep}\nexit ${code}\n`,
    })));
    const cancelled = await client.submitJob(system, { name: 'too-long', workingDirectory: jobsDir, script: '#!/bin/bash\n#SBATCH --partition=debug\nsleep 300\n' });
    // Cancelled once it runs, so the table shows a job that ran and was cancelled.
    await until(`job ${cancelled} running`, async () => ((await client.job(system, cancelled)).stateClass === 'running' ? true : undefined), 120_000, 300);
    await client.cancelJob(system, cancelled);
    await Promise.all([...ids, cancelled].map((id) => client.waitForJob(system, id, { overallTimeoutMs: 120_000 })));
    await jobs.remove();
  } finally {
    await client.dispose();
  }
}

describe('Job Accounting panel (UI)', () => {
  before(async function () {
    this.timeout(240_000);
    await submitHistory();
  });

  // The first query reads the user's accounting: with a busy test user's history on a machine
  // running three CIs it took more than a minute (CI39). The waits below are guards, not budgets.
  it('shows the table with the charts in the dark theme', async function () {
    this.timeout(300_000);
    const page = await openWorkbench();
    await setTheme(page, 'Default Dark Modern');
    await runCommand(page, 'FirecREST: Job Accounting');
    const view = webview(page);
    await view.locator('table.results tbody tr').first().waitFor({ timeout: 240_000 });
    assert.ok((await view.locator('svg.chart').count()) === 2, 'two charts');
    assert.ok((await view.locator('svg.chart rect.bar').count()) > 0, 'bars drawn');
    const label = await view.locator('svg.chart').first().getAttribute('aria-labelledby');
    assert.ok(label && (await view.locator(`[id="${label.split(' ')[0]}"]`).textContent())?.includes('Jobs per'), 'the chart has a title');
    // Keyboard only: Tab into the table and move with the arrows.
    await view.locator('table.results tbody tr').first().focus();
    await page.keyboard.press('ArrowDown');
    await screenshot(page, 'accounting-dark');
  });

  it('adds what the jobs used with Efficiency: three columns and a chart', async function () {
    if (target().gateway?.scheduler === 'local') return this.skip(); // needs Slurm's accounting: the built-in scheduler keeps none
    this.timeout(300_000);
    const page = await openWorkbench();
    const view = webview(page);
    await view.locator('vscode-button', { hasText: 'Efficiency' }).first().click();
    await view.locator('table.results th', { hasText: 'Time %' }).first().waitFor({ timeout: 180_000 });
    await view.locator('svg.chart title', { hasText: 'Used of requested' }).first().waitFor({ state: 'attached', timeout: 15_000 });
    assert.ok((await view.locator('svg.chart circle.dot-job').count()) > 0, 'a dot per job');
    await view.locator('figure.efficiency').scrollIntoViewIfNeeded();
    await screenshot(page, 'accounting-efficiency');
  });

  it('says what to do when nothing matches (keyboard only: type a name, Enter)', async function () {
    this.timeout(300_000);
    const page = await openWorkbench();
    const view = webview(page);
    const name = view.locator('#f-name');
    await name.click();
    await page.keyboard.type('no-job-has-this-name');
    await page.keyboard.press('Enter');
    await view.getByText('No jobs on').waitFor({ timeout: 120_000 });
    await view.getByText('Last 30 days, no filters').waitFor();
    await screenshot(page, 'accounting-empty');
    // Widening the range clears the filters and brings the table back.
    await view.locator('.status vscode-button').first().click();
    await view.locator('table.results tbody tr').first().waitFor({ timeout: 150_000 });
  });

  it('follows the light theme', async () => {
    const page = await openWorkbench();
    await setTheme(page, 'Default Light Modern');
    const view = webview(page);
    await view.locator('table.results tbody tr').first().waitFor();
    await page.waitForTimeout(500);
    await screenshot(page, 'accounting-light');
    await setTheme(page, 'Default Dark Modern');
  });
});
