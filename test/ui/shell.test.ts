/**
 * The shell as a user sees it: connected through the same bootstrap as `npm start`, the FirecREST
 * container with its views, the status bar item, and commands run from the palette.
 */
import * as assert from 'node:assert/strict';
import { openViewContainer, openWorkbench, runCommand, screenshot, statusBarItem, view } from './support/workbench';

const PROFILE = process.env.FIRECREST_UI_PROFILE ?? 'local';

describe('workbench shell', () => {
  it('shows the connection in the status bar once connected', async () => {
    const page = await openWorkbench();
    const item = statusBarItem(page);
    await item.filter({ hasText: `FirecREST: ${PROFILE}` }).waitFor();
    // Connected: the server-environment icon replaces the spinning sync icon.
    await item.locator('.codicon-server-environment').waitFor({ timeout: 30_000 });
    const text = await item.innerText();
    assert.match(text, new RegExp(`FirecREST: ${PROFILE}`));
    await screenshot(page, 'shell-statusbar', page.locator('.part.statusbar'));
  });

  it('shows the FirecREST container with the Systems and Jobs views', async () => {
    const page = await openWorkbench();
    await openViewContainer(page, 'FirecREST');
    await view(page, 'Systems').header.waitFor();
    await view(page, 'Jobs').header.waitFor();
    await screenshot(page, 'shell-firecrest-container');
  });

  it('runs "FirecREST: Show Log" from the palette and the log says it connected', async () => {
    const page = await openWorkbench();
    await runCommand(page, 'FirecREST: Show Log');
    const output = page.locator('.part.panel');
    await output.getByText(`Connected to "${PROFILE}"`).first().waitFor({ timeout: 15_000 });
    await screenshot(page, 'shell-log');
  });
});

describe('Add Connection, step by step', () => {
  it('walks through the six prompts, checks the server and saves the connection', async function () {
    const url = process.env.FIRECREST_URL;
    if (!url || !process.env.FIRECREST_CLIENT_SECRET) return this.skip();
    const page = await openWorkbench();
    await runCommand(page, 'FirecREST: Add Connection…');
    const input = page.locator('.quick-input-widget input');
    const answer = async (text: string) => {
      await input.fill(text);
      await page.keyboard.press('Enter');
    };
    await answer('ui-added');
    await answer(url);
    await answer('v2');
    await answer(process.env.FIRECREST_TOKEN_URL ?? '');
    await answer(process.env.FIRECREST_CLIENT_ID ?? '');
    await page.locator('.quick-input-widget input[type="password"]').waitFor();
    await screenshot(page, 'shell-add-connection-secret');
    await answer(process.env.FIRECREST_CLIENT_SECRET ?? '');
    await page.locator('.notifications-toasts').getByText('Connection ui-added added').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'shell-add-connection-done');
    await runCommand(page, 'FirecREST: Remove Connection');
    await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'ui-added' }).first().click();
    await page.locator('.monaco-dialog-box').getByRole('button', { name: 'Remove' }).click();
  });
});
