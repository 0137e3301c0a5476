/**
 * Signing in as a person (issue #18) in the real workbench (code-server in Chromium): Add
 * Connection with the identity provider, the device code shown in VS Code, the gateway's own
 * pages in a second browser tab (code, login, TOTP, confirm), the account in the Accounts menu and
 * the systems in the tree; then sign-out from the Accounts menu leaves the Sign In node.
 * The UI run's gateway has MFA on (scripts/run-ui-tests.mjs starts it with --mfa).
 */
import * as assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import type { GatewayInfo } from '../support/target';
import { expandView, openViewContainer, openWorkbench, pickIfAsked, runCommand, screenshot, view } from './support/workbench';

const PROFILE = 'cluster-sso';

/** Types into the input box of step `step` of Add Connection (the previous box may still be there). */
async function answer(page: Page, step: number, text: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title').filter({ hasText: `(${step}/7)` }).waitFor({ timeout: 15_000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text);
  await page.keyboard.press('Enter');
}

async function pick(page: Page, label: string): Promise<void> {
  assert.ok(await pickIfAsked(page, label, 15_000), `the quick pick offers "${label}"`);
}

describe('Sign in as a person (UI)', () => {
  const g = JSON.parse(process.env.FIRECREST_GATEWAY ?? '{}') as GatewayInfo;

  it('signs in through the device page with TOTP, shows the account and the systems, and signs out from the Accounts menu', async function () {
    const alice = g.idpUsers?.find((u) => u.login === 'alice');
    if (!g.issuer || !alice?.totpSecret) this.skip();
    this.timeout(240_000);
    const page = await openWorkbench();
    await runCommand(page, 'FirecREST: Add Connection…');
    await answer(page, 1, PROFILE);
    await answer(page, 2, g.v2);
    await pick(page, 'auto');
    await pick(page, 'Sign in with my account');
    await answer(page, 5, g.issuer ?? '');
    await answer(page, 6, g.publicClientId ?? '');

    // In a browser-based VS Code the loopback redirect cannot reach the extension: a device code.
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: 'To sign in, enter the code' }).first();
    await dialog.waitFor({ timeout: 30_000 });
    const said = await dialog.innerText();
    const [, code, at] = /enter the code (\S+) at (\S+)/.exec(said) ?? [];
    assert.ok(code && at, said);
    await screenshot(page, 'signin-device-code', dialog);

    // "Copy and Open" opens the identity provider's page in a tab, and that page works: code-server
    // reaches a 127.0.0.1 address through its port proxy, and the page's path and code survive it.
    const opened = page.context().waitForEvent('page', { timeout: 15_000 });
    await dialog.locator('.monaco-button').filter({ hasText: 'Copy and Open' }).click();
    const idp = await opened;
    // Until the sign-in ends, the code and the address stay on screen (the progress notification).
    const waiting = page.locator('.notification-toast').filter({ hasText: `Waiting for the sign-in with the code ${code}` }).first();
    await waiting.waitFor({ timeout: 15_000 });
    assert.match(await waiting.innerText(), new RegExp(at.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    try {
      await idp.waitForLoadState();
      // With the code in the address, the provider asks to confirm it; without, to type it.
      const input = idp.locator('input[name="user_code"]:visible');
      if (await input.count()) {
        await input.fill(code);
        await idp.getByRole('button', { name: 'Continue' }).click();
      }
      // oidc-provider confirms the device first, then asks who you are.
      await idp.locator('h1', { hasText: 'Confirm the device' }).waitFor({ timeout: 15_000 });
      assert.match(await idp.locator('.code').innerText(), new RegExp(code.replace(/[-]/g, '.?')));
      await idp.getByRole('button', { name: 'Continue' }).click();
      await idp.locator('#login').waitFor({ timeout: 15_000 });
      await idp.locator('#login').fill(alice.login);
      await idp.locator('#password').fill(alice.password);
      await screenshot(idp, 'signin-idp-login');
      await idp.getByRole('button', { name: 'Sign in' }).click();
      await idp.locator('#code').waitFor({ timeout: 15_000 });
      const totp = new TOTP({ secret: Secret.fromBase32(alice.totpSecret), digits: 6, period: 30, algorithm: 'SHA1' });
      await idp.locator('#code').fill(totp.generate());
      await screenshot(idp, 'signin-idp-totp');
      await idp.getByRole('button', { name: 'Verify' }).click();
      await idp.locator('h1', { hasText: 'Signed in' }).waitFor({ timeout: 15_000 });
    } catch (e) {
      await screenshot(idp, 'failed-signin-idp-page');
      throw e;
    } finally {
      await idp.close();
    }

    // Back in VS Code: the connection lists its systems.
    await openViewContainer(page, 'FirecREST');
    await expandView(page, 'Systems');
    const systems = view(page, 'Systems').body;
    const connection = systems.locator('.monaco-list-row').filter({ hasText: PROFILE }).first();
    await connection.waitFor({ timeout: 30_000 });
    const system = g.systems[0] ?? 'localcluster';
    await systems.locator('.monaco-list-row').filter({ hasText: new RegExp(`^${system}`) }).nth(1).waitFor({ timeout: 30_000 });
    await screenshot(page, 'signin-systems', page.locator('.part.sidebar'));

    // The Accounts menu: the person's account, and Sign Out there.
    await page.locator('.activitybar .action-item a[aria-label^="Accounts"]').first().click();
    const menu = page.locator('.monaco-menu-container, .context-view .monaco-menu').first();
    const account = menu.locator('.action-item').filter({ hasText: `${alice.user} @ ${PROFILE}` }).first();
    await account.waitFor({ timeout: 15_000 });
    await screenshot(page, 'signin-accounts-menu');
    await account.hover();
    const signOut = page.locator('.monaco-menu .action-item').filter({ hasText: /^Sign Out$/ }).last();
    await signOut.hover();
    // The menu acts on Enter for the item under the pointer (a synthetic click can land between its mouse events).
    await page.keyboard.press('Enter');
    // VS Code asks before signing an account out.
    const confirm = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: /^Sign Out$/ }).first();
    await confirm.waitFor({ timeout: 15_000 });
    await confirm.click();
    await systems.locator('.monaco-list-row').filter({ hasText: 'Not signed in' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'signin-signed-out', page.locator('.part.sidebar'));

  });

  // The other UI tests expect the one demo connection, whatever happened above.
  after(async () => {
    const page = await openWorkbench();
    await page.keyboard.press('Escape');
    await openViewContainer(page, 'FirecREST');
    await expandView(page, 'Systems');
    const row = view(page, 'Systems').body.locator('.monaco-list-row').filter({ hasText: PROFILE }).first();
    if (!(await row.count())) return;
    await runCommand(page, 'FirecREST: Remove Connection');
    await pick(page, PROFILE);
    await page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: /^Remove$/ }).first().click();
    await row.waitFor({ state: 'detached', timeout: 30_000 });
  });
});
