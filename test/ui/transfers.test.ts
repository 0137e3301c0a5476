/**
 * The Transfer Centre as a user sees it, in the dark and the light theme: the panel opens from the
 * palette, then a file goes up with "FirecREST: Upload from Local…" (remote folder typed into the
 * input, local file into the open dialog), staged in parts that the gateway slows down so that the
 * transfer can be seen running; then it ends verified. Screenshots in test-results/:
 * transfers-{dark,light}-{running,done}.png.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { gatewayOnly, target } from '../support/target';
import { remoteHome, testClient } from './support/client';
import { admin } from './support/gateway';
import { openWorkbench, runCommand, screenshot } from './support/workbench';

const MiB = 1024 * 1024;

/** The document inside the (one) webview: VS Code nests the page in a second iframe. */
function webview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Sets `workbench.colorTheme` through the theme picker (it lists `Default Dark Modern` as `Dark Modern`). */
async function setTheme(page: Page, theme: 'Default Dark Modern' | 'Default Light Modern'): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row').filter({ has: page.getByText('Preferences: Color Theme', { exact: true }) }).first().click();
  const label = theme.replace(/^Default /, '');
  await page.locator('.quick-input-widget input').fill(label);
  await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: label }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  await page.locator(theme.includes('Light') ? '.monaco-workbench.vs' : '.monaco-workbench.vs-dark').waitFor();
}

describe('Transfer Centre (UI)', () => {
  const t = target();
  let home = '';
  let local = '';
  /** Fresh names each run: the gateway's home folder outlives a run. */
  const tag = randomBytes(3).toString('hex');

  before(async function () {
    this.timeout(120_000);
    const client = await testClient('ui-transfers');
    try {
      home = await remoteHome(client, t.system);
    } finally {
      await client.dispose();
    }
    local = mkdtempSync(join(tmpdir(), 'f7t-ui-transfers-'));
    // Parts of 1 MiB, each held back 1.5 to 3 s: the transfer runs long enough to be seen.
    if (!gatewayOnly()) {
      await admin('PUT', '/settings', { maxPartSize: MiB });
      await admin('PUT', '/faults', { seed: 5, latency: { rate: 1, ms: 3000, minMs: 1500, match: '^PUT /s3/' } });
    }
  });

  after(async () => {
    const client = await testClient('ui-transfers');
    for (const name of [`centre-dark-${tag}.bin`, `centre-light-${tag}.bin`]) await client.remove(t.system, `${home}/${name}`).catch(() => undefined);
    await client.dispose();
    if (!gatewayOnly()) {
      await admin('DELETE', '/faults').catch(() => undefined);
      await admin('PUT', '/settings', { maxPartSize: 2147483648 }).catch(() => undefined);
    }
    if (local) rmSync(local, { recursive: true, force: true });
  });

  /** Uploads a new local file of `mib` MiB into the remote home through the palette and both dialogs. */
  async function upload(page: Page, name: string, mib: number): Promise<void> {
    const file = join(local, name);
    writeFileSync(file, randomBytes(mib * MiB + 17));
    await runCommand(page, 'FirecREST: Upload from Local…');
    const folder = page.locator('.quick-input-widget input[placeholder^="firecrest://"]');
    await folder.waitFor({ timeout: 15_000 });
    await folder.fill(`firecrest://${t.system}${home}/`);
    await page.keyboard.press('Enter');
    // The open dialog (VS Code's own, in the browser): type the path, then accept it.
    const dialog = page.locator('.quick-input-widget').filter({ hasText: `Upload to ${home}` }).first();
    await dialog.waitFor({ timeout: 15_000 });
    // An Enter can still leave the dialog open when a folder read lands just before it (seen on a
    // loaded CI machine): the dialog is then checked and the path typed again, at most 3 times.
    const input = dialog.locator('input').first();
    const row = dialog.locator('.monaco-list-row').filter({ hasText: name }).first();
    for (let attempt = 1; ; attempt++) {
      // The dialog reads folders as the path is typed and rewrites its value when a read lands;
      // under load one can land after the whole path was typed and leave the file out of the list
      // (CI62). The path is typed again until the list shows the file under the whole path (60 s
      // guard). Then the dialog is in the file's folder, and Enter accepts the path (an Enter while
      // the dialog is busy waits for it; one while it is in another folder only moves there).
      for (const deadline = Date.now() + 60_000; ;) {
        await input.fill(file);
        if (await row.waitFor({ timeout: 10_000 }).then(async () => (await input.inputValue()) === file, () => false)) break;
        if (Date.now() > deadline) throw new Error(`the upload dialog never listed ${name} under its path (the path reads ${JSON.stringify(await input.inputValue())})`);
      }
      await page.keyboard.press('Enter');
      try {
        await dialog.waitFor({ state: 'hidden', timeout: attempt < 3 ? 7_000 : 15_000 });
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
        if (!(await dialog.isVisible())) break;
      }
    }
    await page.locator('.notifications-toasts').filter({ hasText: `Uploading ${name}` }).first().waitFor({ timeout: 30_000 });
  }

  async function showCentre(page: Page): Promise<FrameLocator> {
    await runCommand(page, 'FirecREST: Show Transfers');
    const view = webview(page);
    await view.locator('h1', { hasText: 'Transfers' }).waitFor({ timeout: 30_000 });
    return view;
  }

  async function runAndShoot(page: Page, theme: 'dark' | 'light', name: string): Promise<void> {
    // The dialogs first: a focused webview would take the focus from them (and close them).
    await runCommand(page, 'View: Close All Editors');
    await upload(page, name, 12);
    const view = await showCentre(page);
    const row = view.locator('li.transfer.state-running', { hasText: name });
    await row.waitFor({ timeout: 60_000 });
    if (!gatewayOnly()) await row.locator('.part.done').first().waitFor({ timeout: 60_000 });
    await row.locator('vscode-button[data-action="cancel"]').waitFor();
    await screenshot(page, `transfers-${theme}-running`);
    const done = view.locator('li.transfer.state-done', { hasText: name });
    await done.waitFor({ timeout: 120_000 });
    await done.locator('.outcome.verified').waitFor();
    assert.equal(await done.getAttribute('data-percent'), '100');
    assert.match(await done.locator('.badge.ok').innerText(), /SHA-256 verified/);
    // Keyboard only: from Retry, Tab reaches Open Destination of the same transfer.
    await done.locator('vscode-button[data-action="retry"]').focus();
    await page.keyboard.press('Tab');
    assert.equal(await done.locator('vscode-button[data-action="open"]').evaluate((e) => e === e.ownerDocument.activeElement), true, 'Tab moves to Open Destination');
    await page.waitForTimeout(300);
    await screenshot(page, `transfers-${theme}-done`);
  }

  it('shows an upload running, with its parts, and then verified, in the dark theme', async function () {
    this.timeout(240_000);
    const page = await openWorkbench();
    await setTheme(page, 'Default Dark Modern');
    await runAndShoot(page, 'dark', `centre-dark-${tag}.bin`);
  });

  it('follows the light theme', async function () {
    this.timeout(240_000);
    const page = await openWorkbench();
    await setTheme(page, 'Default Light Modern');
    try {
      await runAndShoot(page, 'light', `centre-light-${tag}.bin`);
    } finally {
      await setTheme(page, 'Default Dark Modern');
    }
  });
});
