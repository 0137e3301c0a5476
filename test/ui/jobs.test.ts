/**
 * The Jobs tree as a user sees it, with one running and one finished job (submitted through the
 * client core so the screenshot does not wait for typing), grouped by state with their
 * descriptions (elapsed / limit, exit code); the servers' transfer jobs in their Transfers group;
 * a job's details rendered; its output as a document, the alerts in it highlighted; an array as
 * one parent with its tasks' counts, expanded to its tasks. Screenshots in test-results/.
 */
import * as assert from 'node:assert/strict';
import type { FirecrestClient } from '../../src/core/index';
import { target } from '../support/target';
import { until } from '../support/until';
import { jobsFolder } from '../support/jobsFolder';
import { remoteHome, testClient } from './support/client';
import { openViewContainer, openWorkbench, runCommand, screenshot, view } from './support/workbench';

/** The workbench with the Jobs view given the side bar (the tree renders only the rows in view), refreshed. */
async function jobsView() {
  const page = await openWorkbench();
  await openViewContainer(page, 'FirecREST');
  const jobs = view(page, 'Jobs');
  await jobs.header.waitFor();
  const systemsHeader = view(page, 'Systems').header;
  if ((await systemsHeader.getAttribute('aria-expanded')) === 'true') await systemsHeader.click();
  await runCommand(page, 'FirecREST: Refresh Jobs');
  return { page, body: jobs.body };
}

describe('Jobs view (UI)', () => {
  let client: FirecrestClient;
  let system = '';
  let home = '';
  /** Where the jobs run (their output files go with it). */
  let jobsDir = '';
  let removeJobsDir: (() => Promise<void>) | undefined;
  let running: string | undefined;
  let array: string | undefined;
  // Names of this run's own: other runs on the machine share the home.
  const copied = `ui-copy-${Math.random().toString(36).slice(2, 8)}`;

  before(async function () {
    this.timeout(120_000);
    system = target().system;
    // A full job listing of a busy test user took more than 30 s with three CIs on the machine (CI40).
    client = await testClient('ui-jobs', { requestTimeoutMs: 180_000 });
    home = await remoteHome(client, system);
    ({ path: jobsDir, remove: removeJobsDir } = await jobsFolder(client, system, home, 'ui-jobs'));
  });

  after(async () => {
    for (const id of [running, array]) if (id) await client.cancelJob(system, id).catch(() => undefined);
    for (const name of [`${copied}-source.txt`, `${copied}-target.txt`]) await client?.remove(system, `${home}/${name}`).catch(() => undefined);
    await removeJobsDir?.();
    await client?.dispose();
  });

  it('shows a running and a finished job, grouped by state', async function () {
    this.timeout(480_000);
    const done = await client.submitJob(system, { script: '#!/bin/bash\necho hello from the UI test\nfor i in 1 2 3; do echo "step $i loss=0.$i"; done\necho "Traceback (most recent call last):"\necho "  File train.py, line 3"\necho "ValueError: loss is NaN"\n', workingDirectory: jobsDir, name: 'ui-finished', partition: 'debug' });
    await client.waitForJob(system, done, { overallTimeoutMs: 60_000 });
    // Slurm's accounting records the exit code a moment after the job is COMPLETED.
    for (const deadline = Date.now() + 60_000; (await client.job(system, done)).exitCode === undefined; await new Promise((r) => setTimeout(r, 1000))) {
      if (Date.now() > deadline) throw new Error(`job ${done} has no exit code 60 s after it completed`);
    }
    // A copy on the cluster is a transfer job of the server's (CopyFiles): listed in its own group.
    await client.uploadSmall(system, home, `${copied}-source.txt`, new TextEncoder().encode('copied by the UI test\n'));
    await client.copy(system, `${home}/${copied}-source.txt`, `${home}/${copied}-target.txt`, { overallTimeoutMs: 120_000 });
    running = await client.submitJob(system, { script: '#!/bin/bash\nsleep 300\n', workingDirectory: jobsDir, name: 'ui-running', partition: 'debug' });
    // On a busy node the job can pend for a while: the screenshot is of a job that really runs.
    for (const deadline = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 1000))) {
      const state = await client.job(system, running).then((j) => j.stateClass, () => 'pending');
      if (state === 'running') break;
      if (Date.now() > deadline) throw new Error(`job ${running} did not start within 120 s (${state})`);
    }

    const { page, body } = await jobsView();
    await body.locator('.monaco-list-row', { hasText: `${running} ui-running` }).first().waitFor({ timeout: 60_000 });
    // Recently finished starts collapsed: open it.
    const finishedGroup = body.locator('.monaco-list-row', { hasText: 'Recently finished' }).first();
    await finishedGroup.waitFor({ timeout: 30_000 });
    if ((await finishedGroup.getAttribute('aria-expanded')) !== 'true') await finishedGroup.click();
    const finishedRow = body.locator('.monaco-list-row', { hasText: `${done} ui-finished` }).first();
    await finishedRow.waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      await screenshot(page, 'jobs-tree-failure', page.locator('.part.sidebar'));
      throw e;
    });
    // The listing learns the exit code from accounting, which may record it after the job's own
    // record had it: refresh until the row shows it.
    for (const deadline = Date.now() + 60_000; !/COMPLETED · exit 0/.test(await finishedRow.innerText()); ) {
      if (Date.now() > deadline) assert.match(await finishedRow.innerText(), /COMPLETED · exit 0/);
      await new Promise((r) => setTimeout(r, 2000));
      await runCommand(page, 'FirecREST: Refresh Jobs');
    }
    const runningRow = body.locator('.monaco-list-row', { hasText: `${running} ui-running` }).first();
    assert.match(await runningRow.innerText(), /\d+:\d\d \/ /);
    await runningRow.hover();
    await screenshot(page, 'jobs-tree-running-finished', page.locator('.part.sidebar'));

    // Show Job Details: rendered (the Markdown preview), not Markdown text.
    await finishedRow.click({ button: 'right' });
    const item = page.locator('.context-view .action-item').filter({ hasText: 'Show Job Details' }).first();
    await item.hover();
    await page.keyboard.press('Enter');
    const preview = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    await preview.locator('h1', { hasText: `Job ${done}: ui-finished` }).first().waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      await screenshot(page, 'job-details-failure');
      throw e;
    });
    await screenshot(page, 'job-details-rendered');
    // A preview (a webview) left open keeps the keyboard from the suites that follow.
    await runCommand(page, 'View: Close All Editors');
    await page.locator('.tabs-container .tab').filter({ hasText: `${done}.md` }).waitFor({ state: 'detached', timeout: 15_000 });

    // Open Job Output: a read-only document with the alerts highlighted and how the job ended.
    // From the palette, picking the job by its id: the tree redraws whenever the listing changes
    // (another run on the machine submits as the same user), and a context menu opened on a row
    // that was just redrawn runs its command without the row.
    await runCommand(page, 'FirecREST: Open Job Output');
    const pick = page.locator('.quick-input-widget');
    await pick.locator('input').fill(`${done} ui-finished`);
    // The pick opens at once and fills in when the listing arrives (minutes with several runs on the machine).
    await pick.locator('.monaco-list-row').filter({ hasText: `${done} ui-finished` }).first().waitFor({ timeout: 180_000 });
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .view-lines');
    await editor.filter({ hasText: `[Job ${done} completed with exit code 0.]` }).first().waitFor({ timeout: 30_000 });
    await page.locator('.tabs-container .tab').filter({ hasText: `slurm-${done}.out` }).first().waitFor();
    // The two default alerts of this output (a Traceback and a NaN) carry the highlight.
    const highlighted = await page.locator('.editor-instance .view-overlays div[class*="ced-"], .editor-instance .view-line span[class*="ced-"]').count();
    assert.ok(highlighted >= 2, `${highlighted} highlighted ranges`);
    await screenshot(page, 'job-output-alert');
    await runCommand(page, 'View: Close All Editors');

    // The server's transfer jobs sit apart, in a collapsed Transfers group (below the finished
    // jobs: those are folded first, as the tree draws only the rows in view).
    await finishedGroup.click();
    const transfers = body.locator('.monaco-list-row', { hasText: /^Transfers/ }).first();
    await transfers.waitFor({ timeout: 30_000 });
    assert.equal(await transfers.getAttribute('aria-expanded'), 'false', 'the Transfers group starts collapsed');
    await transfers.click();
    await body.locator('.monaco-list-row', { hasText: 'CopyFiles' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'jobs-tree-transfers', page.locator('.part.sidebar'));
  });

  it('shows an array as one parent with its tasks\' counts, expanding to its tasks', async function () {
    this.timeout(300_000);
    // The running job of the test before is done with: its CPU is one of the two that the built-in
    // scheduler offers on a 2-core machine, and two tasks must run at once here.
    if (running) {
      await client.cancelJob(system, running);
      await client.waitForJob(system, running, { overallTimeoutMs: 60_000 });
      running = undefined;
    }
    // 20 tasks, 2 at a time: 0-1 end at once, 2-3 run on, the rest wait their turn.
    const script = '#!/bin/bash\n#SBATCH --array=0-19%2\n#SBATCH --time=00:05:00\n#SBATCH --output=/dev/null\nif [ "$SLURM_ARRAY_TASK_ID" -ge 2 ]; then sleep 240; fi\n';
    array = await client.submitJob(system, { script, workingDirectory: jobsDir, name: 'ui-array', partition: 'debug' });
    await until('2 tasks running and 2 done', async () => {
      const tasks = (await client!.jobs(system)).filter((j) => j.array?.jobId === array);
      return tasks.filter((j) => j.stateClass === 'running').length === 2 && tasks.filter((j) => j.isFinal).length === 2 ? true : undefined;
    }, 120_000, 1000);

    const { page, body } = await jobsView();
    // The parent sits among the running jobs with its tasks' counts, and opens (a task runs).
    const parent = body.locator('.monaco-list-row', { hasText: `${array} ui-array` }).first();
    await parent.waitFor({ timeout: 60_000 });
    // Slurm lists the waiting tasks as one record, `N_[4-19%2]`, which names the throttle; the
    // built-in scheduler lists each task on its own, without it.
    const counts = target().gateway?.scheduler === 'local' ? /array · 2 running · 16 pending · 2 done/ : /array · 2 running · 16 pending \(2 at a time\) · 2 done/;
    for (const deadline = Date.now() + 60_000; !counts.test(await parent.innerText()); ) {
      if (Date.now() > deadline) assert.match(await parent.innerText(), counts);
      await new Promise((r) => setTimeout(r, 2000));
      await runCommand(page, 'FirecREST: Refresh Jobs');
    }
    if ((await parent.getAttribute('aria-expanded')) !== 'true') await parent.click();
    await body.locator('.monaco-list-row', { hasText: `${array}_2 ui-array` }).first().waitFor({ timeout: 30_000 });
    await body.locator('.monaco-list-row', { hasText: `${array}_0 ui-array` }).first().waitFor({ timeout: 30_000 });
    // Slurm folds the waiting tasks into one row (`_[4-19%2]`); the built-in scheduler lists each.
    await body.locator('.monaco-list-row', { hasText: new RegExp(`${array}_(\\[4-19%2\\]|4) ui-array`) }).first().waitFor({ timeout: 30_000 });
    await parent.hover();
    await screenshot(page, 'jobs-array-parent', page.locator('.part.sidebar'));
    await client.cancelJob(system, array);
  });
});
