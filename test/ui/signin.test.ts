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
import { openViewContainer, openWorkbench, pickIfAsked, runCommand, screenshot, view } from './support/workbench';

const PROFILE = 'cluster-sso';

async function answer(page: Page, text: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
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
    await runCommand(page, 'FirecREST: Add Connection');
    await answer(page, PROFILE);
    await answer(page, g.v2);
    await pick(page, 'auto');
    await pick(page, 'Sign in with my account');
    await answer(page, g.issuer ?? '');
    await answer(page, g.publicClientId ?? '');

    // In a browser-based VS Code the loopback redirect cannot reach the extension: a device code.
    const toast = page.locator('.notification-toast').filter({ hasText: 'To sign in, enter the code' }).first();
    await toast.waitFor({ timeout: 30_000 });
    const said = await toast.innerText();
    const [, code, at] = /enter the code (\S+) at (\S+)/.exec(said) ?? [];
    assert.ok(code && at, said);
    assert.match(said, /Copy and Open/);
    await screenshot(page, 'signin-device-code', toast);

    // The person, in another tab: the code, the login page, the second factor, the confirmation.
    const idp = await page.context().newPage();
    try {
      await idp.goto(at);
      await idp.locator('input[name="user_code"]').fill(code);
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
      await idp.getByRole('button', { name: 'Continue' }).first().click();
      await idp.locator('h1', { hasText: 'Signed in' }).waitFor({ timeout: 15_000 });
    } finally {
      await idp.close();
    }

    // Back in VS Code: the connection lists its systems.
    await openViewContainer(page, 'FirecREST');
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
    await page.locator('.monaco-menu .action-item').filter({ hasText: /^Sign Out$/ }).last().click();
    // VS Code asks before signing an account out.
    const confirm = page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: /^Sign Out$/ });
    if (await confirm.first().isVisible({ timeout: 5000 }).catch(() => false)) await confirm.first().click();
    await systems.locator('.monaco-list-row').filter({ hasText: 'Not signed in' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'signin-signed-out', page.locator('.part.sidebar'));

    // The other UI tests expect the one demo connection.
    await runCommand(page, 'FirecREST: Remove Connection');
    await pick(page, PROFILE);
    await page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: /^Remove$/ }).first().click();
    await connection.waitFor({ state: 'detached', timeout: 30_000 });
  });
});
